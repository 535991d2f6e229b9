// Person and group properties as the region answers them. Without the persons.pii scope the
// region replaces personal-data values with "[masked]" (docs/persons.md, "Personal data");
// the console shows those as masked, says why, and never guesses at what is behind them.
import type { ProjectDto, RegionTokenResponse } from "../../api/types.ts";
import type { Properties } from "../../api/persons-api.ts";
import type { RegionTokenSource } from "../../api/region-token.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { Alert } from "../../ui/alert.tsx";

/** What the region writes in place of a personal-data value. */
export const maskedValue = "[masked]";

/** The region token's scopes, once it is known (null until then, or when it could not be had). */
export function useRegionScopes(tokens: RegionTokenSource): ReadonlySet<string> | null {
  const [token] = useResource<RegionTokenResponse>(() => tokens.get(), [tokens]);
  return token.status === "ready" ? new Set(token.data.scopes) : null;
}

/** Whether values read with these scopes may be masked: only without persons.pii. */
export const readsMasked = (scopes: ReadonlySet<string> | null) => scopes !== null && !scopes.has("persons.pii");

const isMasked = (value: unknown, masking: boolean) => masking && value === maskedValue;

/** Whether any value in `properties` (nested ones too) is masked. */
export function hasMasked(properties: Properties | null | undefined, masking: boolean): boolean {
  if (!masking || !properties) return false;
  const visit = (value: unknown): boolean =>
    value === maskedValue || (Array.isArray(value) ? value.some(visit) : value !== null && typeof value === "object" && Object.values(value).some(visit));
  return Object.values(properties).some(visit);
}

/** A property's value as text: strings as they are, anything else as JSON. */
export const valueText = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));

export function PropertyValue({ value, masking }: { value: unknown; masking: boolean }) {
  if (isMasked(value, masking)) return <span class="masked-value" title="Personal data, masked for your role">masked</span>;
  if (value === null || value === "") return <span class="value-empty">{value === null ? "null" : "(empty)"}</span>;
  if (typeof value === "object") return <code class="value-json">{JSON.stringify(value)}</code>;
  return <span class="value-text">{String(value)}</span>;
}

/** Why some values read "masked": the role, and who can see them. */
export function MaskedNote({ project, what = "properties" }: { project: ProjectDto; what?: string }) {
  return (
    <Alert tone="info">
      Some {what} are shown as <span class="masked-value">masked</span>: they are personal data (email, phone, name, address and IP properties, values that are email or IP addresses, and properties the catalog marks as personal). Your role in this project ({project.role}) does not include seeing personal data; admins and owners do.
    </Alert>
  );
}

export function PropertyTable({ properties, masking, caption, empty = "No properties." }: { properties: Properties; masking: boolean; caption: string; empty?: string }) {
  const keys = Object.keys(properties).sort((a, b) => a.localeCompare(b));
  if (keys.length === 0) return <p class="muted-text">{empty}</p>;
  return (
    <div class="table-scroll">
      <table class="data-table props-table">
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Property</th>
            <th scope="col">Value</th>
          </tr>
        </thead>
        <tbody>
          {keys.map((key) => (
            <tr key={key}>
              <th scope="row" class="property-key">{key}</th>
              <td><PropertyValue value={properties[key]} masking={masking} /></td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
