export default async function resolver(path, vars, context) {
  if (path === 'object-please') {
    return { path, count: vars.count };
  }
  const lines = [];
  for (let i = 0; i < vars.count; i++) {
    lines.push(`- item${i}`);
  }
  return lines.join('\n');
}
