const inputFor = (field) => ({ id: field, type: 'TextInput', properties: { title: field.toUpperCase() } });

export default (page, vars) => ({
  ...page,
  blocks: vars.fields.map(inputFor),
});
