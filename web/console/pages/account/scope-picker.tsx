// A credential's scopes as checkboxes: each domain's read and write, then the named scopes,
// only those the person's role holds (the API refuses any other with 403 scope_not_held) and,
// on the OAuth consent page, only those the application registered for.
import type { Role } from "../../api/types.ts";
import { namedScopes, scopeDomains, scopesOfRole } from "./scopes.ts";

interface ScopePickerProps {
  role: Role;
  chosen: ReadonlySet<string>;
  onChange(chosen: Set<string>): void;
  /** Only these may be offered (an OAuth application's registered scopes); every scope when absent. */
  offered?: ReadonlySet<string>;
  /** What is given the scopes: "the token", "the application". */
  subject?: string;
}

function ScopeBox({ scope, label, chosen, onChange }: { scope: string; label: string; chosen: ReadonlySet<string>; onChange(chosen: Set<string>): void }) {
  const toggle = (on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(scope);
    else next.delete(scope);
    onChange(next);
  };
  return (
    <label class="scope-box">
      <input type="checkbox" name="scope" value={scope} checked={chosen.has(scope)} onChange={(event) => toggle(event.currentTarget.checked)} aria-label={scope} />
      <span>{label}</span>
    </label>
  );
}

export function ScopePicker({ role, chosen, onChange, offered, subject = "the token" }: ScopePickerProps) {
  const held = new Set([...scopesOfRole(role)].filter((scope) => !offered || offered.has(scope)));
  const named = namedScopes.filter(({ scope }) => held.has(scope));
  const readAll = () => onChange(new Set([...chosen, ...scopeDomains.map((domain) => `${domain}:read`).filter((scope) => held.has(scope))]));
  return (
    <fieldset class="field scope-picker">
      <legend class="field-label">Scopes</legend>
      <p class="field-hint">
        What {subject} may do, within what your role ({role}) holds; a scope your role loses later stops working at once. Write includes read.{" "}
        <button type="button" class="link-button" onClick={readAll}>Choose every read scope</button>
      </p>
      <div class="scope-grid" role="group" aria-label="Domain scopes">
        {scopeDomains.map((domain) => (
          <div key={domain} class="scope-domain">
            <span class="scope-domain-name">{domain}</span>
            {held.has(`${domain}:read`) ? <ScopeBox scope={`${domain}:read`} label="read" chosen={chosen} onChange={onChange} /> : <span class="scope-absent">no read</span>}
            {held.has(`${domain}:write`) ? <ScopeBox scope={`${domain}:write`} label="write" chosen={chosen} onChange={onChange} /> : <span class="scope-absent">no write</span>}
          </div>
        ))}
      </div>
      {named.length > 0 && (
        <div class="scope-named" role="group" aria-label="Named scopes">
          {named.map(({ scope, allows }) => (
            <ScopeBox key={scope} scope={scope} label={`${scope}: ${allows}`} chosen={chosen} onChange={onChange} />
          ))}
        </div>
      )}
    </fieldset>
  );
}
