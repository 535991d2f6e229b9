// The token form offers the scopes each role holds from the console's own copy of the scope
// catalogue (the console does not import server code); it must say what the control plane says.
import { expect, test } from "bun:test";
import { allScopes, roles, scopesOfRole as serverScopesOfRole, sortScopes as serverSortScopes } from "../../../../../server/control/auth/scopes.ts";
import { namedScopes, scopeDomains, scopesOfRole, sortScopes } from "../../../../../web/console/pages/account/scopes.ts";

test("every role holds the same scopes in the console's copy as in the control plane", () => {
  for (const role of roles) expect([...scopesOfRole(role)].sort()).toEqual([...serverScopesOfRole(role)].sort());
});

test("the catalogue is the same, in the same order", () => {
  const consoleCatalogue = [...scopeDomains.map((domain) => `${domain}:read`), ...scopeDomains.map((domain) => `${domain}:write`), ...namedScopes.map(({ scope }) => scope)];
  expect(consoleCatalogue).toEqual([...allScopes]);
  const shuffled = [...allScopes].reverse();
  expect(sortScopes(shuffled)).toEqual(serverSortScopes(shuffled));
});
