// Pairing codes, the content of the QR codes a gateway session shows. A code is current until
// it is rotated, its session closes, or a phone scans it; retired codes are remembered (a
// bounded number) so that scanning one answers why it no longer works.
import { ControlError } from "./control-error.ts";

/** Beyond this many retired codes the oldest are forgotten (and scanning them answers 404). */
const retiredCodesRememberedMax = 10_000;

export class PairingCodes<Owner> {
  private readonly current = new Map<string, Owner>();
  private readonly retired = new Map<string, "expired" | "used">();

  issue(owner: Owner): string {
    const code = `sim-pair:${crypto.randomUUID()}`;
    this.current.set(code, owner);
    return code;
  }

  /** The code stops working: rotated, or its session is gone. */
  expire(code: string): void {
    this.retire(code, "expired");
  }

  /** A phone scans `code`: its owner, once; the code is used up. */
  take(code: string): Owner {
    const owner = this.current.get(code);
    if (owner !== undefined) {
      this.retire(code, "used");
      return owner;
    }
    const retired = this.retired.get(code);
    if (retired === "used") throw new ControlError(409, "code_used", "this pairing code was already scanned");
    if (retired === "expired") throw new ControlError(410, "code_expired", "this pairing code expired (rotated, or its session closed); scan the current one");
    throw new ControlError(404, "unknown_code", "no session shows this pairing code");
  }

  private retire(code: string, why: "expired" | "used"): void {
    if (!this.current.delete(code)) return;
    this.retired.set(code, why);
    if (this.retired.size > retiredCodesRememberedMax) this.retired.delete(this.retired.keys().next().value!);
  }
}
