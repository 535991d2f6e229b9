// Event ids of GET /events/live: `<epoch>-<n>`, n the event's number in its environment's
// acceptance order and epoch the hub's (random per process), so a client reconnecting with
// the id of an event from before a restart is told apart from one that resumes.

export const eventId = (epoch: string, seq: number) => `${epoch}-${seq}`;

const eventIdPattern = /^([0-9a-f]{8})-(\d{1,15})$/;

/** The id's event number when `epoch` gave it; null when another process did; undefined when it is no such id. */
export function eventSeq(id: string, epoch: string): number | null | undefined {
  const match = eventIdPattern.exec(id);
  if (!match) return undefined;
  return match[1] === epoch ? Number(match[2]) : null;
}
