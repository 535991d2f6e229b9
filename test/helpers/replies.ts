// Whole answers as the control plane gives them, for comparing with toEqual.
export const validation = (message: string) => ({ status: 400, body: { error: { code: "validation", message } } });
export const conflict = (message: string) => ({ status: 409, body: { error: { code: "conflict", message } } });
/** The parts of a reply a test compares: its status and body. */
export const reply = (r: { status: number; body: unknown }) => ({ status: r.status, body: r.body });
