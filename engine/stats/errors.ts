// Inputs the statistics cannot work with (a rate of 1.2, an arm with no units, alpha of 0).
// The error carries the same code and status as the HTTP layer's validation errors so a
// route can pass it on unchanged; engine/ does not import server code, hence its own class.

export class StatsInputError extends Error {
  readonly code = "validation";
  readonly status = 400;
  override readonly name = "StatsInputError";
}

export function requireFinite(name: string, value: number): void {
  if (!Number.isFinite(value)) throw new StatsInputError(`${name} must be a finite number, got ${value}`);
}

/** Strictly between 0 and 1: alpha, power, a baseline rate. */
export function requireOpenUnitInterval(name: string, value: number): void {
  if (!(value > 0 && value < 1)) throw new StatsInputError(`${name} must be between 0 and 1 (exclusive), got ${value}`);
}

export function requirePositive(name: string, value: number): void {
  if (!(value > 0 && Number.isFinite(value))) throw new StatsInputError(`${name} must be a positive number, got ${value}`);
}

export function requireNonNegative(name: string, value: number): void {
  if (!(value >= 0 && Number.isFinite(value))) throw new StatsInputError(`${name} must be zero or more, got ${value}`);
}

/** A number of units or conversions: a whole number, zero or more. */
export function requireCount(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new StatsInputError(`${name} must be a whole number, zero or more, got ${value}`);
}

export function requireAtLeast(name: string, value: number, minimum: number): void {
  if (!(value >= minimum)) throw new StatsInputError(`${name} must be at least ${minimum}, got ${value}`);
}
