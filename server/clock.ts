// One place for "now", so expiry logic reads the same everywhere.
export const nowIso = (): string => new Date().toISOString();
export const isoIn = (milliseconds: number): string => new Date(Date.now() + milliseconds).toISOString();
export const minuteMs = 60_000;
export const hourMs = 60 * minuteMs;
export const dayMs = 24 * hourMs;
