// Whether the executor's answer equals DuckDB's, the rule of the benchmark and of the
// differential test (test/engine/differential.test.ts): integers exactly, other numbers to 1e-9 relative,
// everything else exactly. Returns the path of the first difference, or null.
const relativeTolerance = 1e-9;

export function resultDifference(actual: unknown, expected: unknown, path = "result"): string | null {
  if (typeof actual === "number" && typeof expected === "number") {
    if (Number.isInteger(actual) && Number.isInteger(expected)) return actual === expected ? null : `${path}: ${actual} != ${expected}`;
    const scale = Math.max(Math.abs(actual), Math.abs(expected), 1e-300);
    return Math.abs(actual - expected) / scale <= relativeTolerance ? null : `${path}: ${actual} != ${expected}`;
  }
  if (Array.isArray(actual) && Array.isArray(expected)) {
    if (actual.length !== expected.length) return `${path}: length ${actual.length} != ${expected.length}`;
    for (let i = 0; i < actual.length; i++) {
      const problem = resultDifference(actual[i], expected[i], `${path}[${i}]`);
      if (problem) return problem;
    }
    return null;
  }
  if (actual && expected && typeof actual === "object" && typeof expected === "object") {
    for (const key of new Set([...Object.keys(actual), ...Object.keys(expected)])) {
      const problem = resultDifference((actual as Record<string, unknown>)[key], (expected as Record<string, unknown>)[key], `${path}.${key}`);
      if (problem) return problem;
    }
    return null;
  }
  return Object.is(actual, expected) ? null : `${path}: ${JSON.stringify(actual)} != ${JSON.stringify(expected)}`;
}
