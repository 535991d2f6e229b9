// The HTTP server's own bound on a request's head (its request line and headers together).
// Bun refuses a head past it before any of our code runs, with an empty 431 and no CORS
// headers, which a browser's script cannot even read; its default (16 KiB) made ingest GETs
// carrying their events in the query string fail that way. The bound is raised so that the
// surfaces can answer long requests in their own shape (ingest: limits.ts ingestUrlBytesMax),
// and kept so that a client cannot make the server buffer unbounded headers per connection.
import http from "node:http";

export const requestHeadBytesMax = 256 * 1024;

/** Applies requestHeadBytesMax to the process's HTTP servers (Bun reads it per request). */
export function boundRequestHeads(): void {
  // Node's types call it read-only (Node takes it from a command-line flag); Bun lets a program set it.
  (http as { maxHeaderSize: number }).maxHeaderSize = requestHeadBytesMax;
}
