// The token form's scopes as checkboxes: each domain's read and write, then the named scopes,
// only those the person's role holds (the API refuses any other with 403 scope_not_held).
import type { Role } from "../../api/types.ts";
import { namedScopes, scopeDomains, scopesOfRole } from "./scopes.ts";

interface ScopePickerProps {
  role: Role;
  chosen: ReadonlySet<string>;
  onChange(chosen: Set<string>): void;
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

export function ScopePicker({ role, chosen, onChange }: ScopePickerProps) {
  const held = scopesOfRole(role);
  const named = namedScopes.filter(({ scope }) => held.has(scope));
  const readAll = () => onChange(new Set([...chosen, ...scopeDomains.map((domain) => `${domain}:read`)]));
  return (
    <fieldset class="field scope-picker">
      <legend class="field-label">Scopes</legend>
      <p class="field-hint">
        What the token may do, within what your role ({role}) holds; a scope your role loses later stops working at once. Write includes read.{" "}
        <button type="button" class="link-button" onClick={readAll}>Choose every read scope</button>
      </p>
      <div class="scope-grid" role="group" aria-label="Domain scopes">
        {scopeDomains.map((domain) => (
          <div key={domain} class="scope-domain">
            <span class="scope-domain-name">{domain}</span>
            <ScopeBox scope={`${domain}:read`} label="read" chosen={chosen} onChange={onChange} />
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
