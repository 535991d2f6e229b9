// How many /sql sandbox processes run at once: a bound for the server (each takes up to 2
// threads and 2 GiB) and a share per tenant (an organisation), so one organisation with several
// projects cannot hold every process and keep other tenants at 429. A slot is taken before any
// work (pinning files, starting the process) and given back when the statement ends.

/** Sandbox processes running at once in this server process, whatever their project or region. */
export const sandboxProcessesMax = 4;
/** Of those, what one organisation may hold: half, so others always find room. */
export const sandboxProcessesPerTenantMax = 2;

export type SlotRefusal = "server" | "tenant";

export class SandboxSlots {
  private running = 0;
  private readonly byTenant = new Map<string, number>();

  constructor(readonly max = sandboxProcessesMax, readonly perTenantMax = sandboxProcessesPerTenantMax) {}

  /** A release function, or why there is no slot: the tenant holds its share, or the server is full. */
  tryAcquire(tenant: string): { release: () => void } | { refused: SlotRefusal } {
    const held = this.byTenant.get(tenant) ?? 0;
    if (held >= this.perTenantMax) return { refused: "tenant" };
    if (this.running >= this.max) return { refused: "server" };
    this.running++;
    this.byTenant.set(tenant, held + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.running--;
        const left = (this.byTenant.get(tenant) ?? 1) - 1;
        if (left === 0) this.byTenant.delete(tenant);
        else this.byTenant.set(tenant, left);
      },
    };
  }
}

/** The server's slots: every region's /sql shares them. */
export const sandboxSlots = new SandboxSlots();
