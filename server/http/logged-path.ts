// A request's path as the request log writes it: a revenue webhook's path token is the only
// credential of an App Store or Play integration, so it is replaced before the line is written.
const webhookToken = /(\/wh\/[^/]+\/)[^/]+/;

export function loggedPath(path: string): string {
  return path.replace(webhookToken, "$1[token]");
}
