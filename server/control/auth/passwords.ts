import { validation } from "../../http/errors.ts";
import { isCommonPassword } from "./common-passwords.ts";

export const passwordLengthMin = 10;
/** Argon2 input is bounded so a huge password cannot be used to burn CPU. */
export const passwordLengthMax = 256;

export function checkPasswordPolicy(password: string, field = "password"): void {
  if (password.length < passwordLengthMin) {
    throw validation(`${field} must be at least ${passwordLengthMin} characters`);
  }
  if (password.length > passwordLengthMax) {
    throw validation(`${field} must be at most ${passwordLengthMax} characters`);
  }
  if (isCommonPassword(password, passwordLengthMin)) {
    throw validation(`${field} is too common: it appears in lists of breached passwords`);
  }
}

export const hashPassword = (password: string): Promise<string> =>
  Bun.password.hash(password, { algorithm: "argon2id" });

export const verifyPassword = (password: string, hash: string): Promise<boolean> =>
  Bun.password.verify(password, hash);
