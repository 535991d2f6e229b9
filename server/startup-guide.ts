// What the service prints once it listens, after the "listening on" line: where clients reach
// it and what to do first, so a first `npm start` tells a new user how to begin: open the web
// console, which signs them up and walks them to their first event.

/** The guide's lines; `baseUrl` is the URL clients use (PUBLIC_URL, else the listening address). */
export function startupGuide(baseUrl: string): string[] {
  return [
    `  web console: ${baseUrl}/ (open it in a browser to sign up and create a first project)`,
    `  health:      ${baseUrl}/health`,
    `  API schema:  ${baseUrl}/openapi.json`,
    `  with curl:   README.md, "From sign-up to a first region token"`,
  ];
}
