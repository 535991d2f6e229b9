// What the service prints once it listens, after the "listening on" line: where clients reach
// it and what to do first, so a first `npm start` tells a new user how to begin. It names only
// what the service serves: the web console is not served yet (issue 37), and `/` answers 404.

/** The guide's lines; `baseUrl` is the URL clients use (PUBLIC_URL, else the listening address). */
export function startupGuide(baseUrl: string): string[] {
  return [
    `  service URL: ${baseUrl} (an API; the web console is not served yet)`,
    `  health:      ${baseUrl}/health`,
    `  API schema:  ${baseUrl}/openapi.json`,
    `  next step:   sign up with POST ${baseUrl}/app/auth/signup, as README.md shows in "From sign-up to a first region token"`,
  ];
}
