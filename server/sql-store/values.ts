// How stored values come back: PostgreSQL hands BIGINT back as text and SQLite as a number.
export const time = (value: number | string | null) => (value === null ? null : Number(value));
export const count = (value: number | string | bigint) => Number(value);
