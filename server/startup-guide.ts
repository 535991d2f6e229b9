// What the service prints once it listens, after the "listening on" line: where clients reach
// it and what to do first, so a first `npm start` tells a new user how to begin: open the web
// console, which signs them up and walks them to their first event.

/** A companion service's root key, as the guide tells the operator where it is. */
export interface RootKeyGuide {
  /** The root key this start made, printed this once; null when configured or made before. */
  createdRootKey: string | null;
  /** Where a made root key is kept. */
  rootKeyFile: string;
  /** The setting that holds it, when it is set (GATEWAY_ROOT_KEY, MAIL_ROOT_KEY); null otherwise. */
  configuredIn: string | null;
}

function keyLine(label: string, { createdRootKey, rootKeyFile, configuredIn }: RootKeyGuide): string {
  if (createdRootKey) return `  ${label} ${createdRootKey} (the operator's root key, shown once; kept in ${rootKeyFile}, mode 0600)`;
  return configuredIn ? `  ${label} ${configuredIn}` : `  ${label} in ${rootKeyFile}`;
}

/** The guide's lines; `baseUrl` is the URL clients use (PUBLIC_URL, else the listening address). */
export function startupGuide(baseUrl: string, gateway: RootKeyGuide, mail: RootKeyGuide): string[] {
  return [
    `  web console: ${baseUrl}/ (open it in a browser to sign up and create a first project)`,
    `  health:      ${baseUrl}/health`,
    `  API schema:  ${baseUrl}/openapi.json`,
    `  with curl:   README.md, "From sign-up to a first region token"`,
    `  gateway:     ${baseUrl}/gateway (messaging gateway: docs/gateway.md)`,
    keyLine("gateway key:", gateway),
    `  mail API:    ${baseUrl}/mail (transactional mail: docs/mail.md)`,
    keyLine("mail key:   ", mail),
  ];
}
