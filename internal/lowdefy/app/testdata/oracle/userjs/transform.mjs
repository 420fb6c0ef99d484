// Multiplies every number by vars.factor.
export default function transformer(input, vars) {
  return {
    numbers: input.numbers.map((n) => n * vars.factor),
    label: `x${input.label}`,
  };
}
