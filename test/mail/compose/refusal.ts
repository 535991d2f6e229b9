// What a refused request looks like in the compose tests: the ComposeError's status, code, field
// and message as one object, so a test compares the whole refusal.
import { ComposeError } from "../../../server/mail/compose/errors.ts";

export interface Refusal {
  status: number;
  code: string;
  field: string;
  message: string;
}

const asRefusal = (error: unknown): Refusal => {
  if (error instanceof ComposeError) return { status: error.status, code: error.code, field: error.field, message: error.message };
  throw error;
};

/** The ComposeError `run` throws; fails when it throws nothing. */
export function refusal(run: () => unknown): Refusal {
  try {
    run();
  } catch (error) {
    return asRefusal(error);
  }
  throw new Error("expected a ComposeError");
}

/** The ComposeError `run` rejects with; fails when it resolves. */
export async function refusalOf(run: () => Promise<unknown>): Promise<Refusal> {
  try {
    await run();
  } catch (error) {
    return asRefusal(error);
  }
  throw new Error("expected a ComposeError");
}

/** The refusal expected for `field`, its message prefixed with the field as ComposeError words it. */
export const refused = (field: string, code: string, message: string, status = 422): Refusal => ({ status, code, field, message: `${field}: ${message}` });
