// Where a project's data lives: one radio card per live region. Fixed for the project's life.
import type { RegionDto } from "../../api/types.ts";

export function RegionChoice({ regions }: { regions: RegionDto[] }) {
  return (
    <fieldset class="field region-choice">
      <legend class="field-label">Region</legend>
      <p class="field-hint" id="region-hint">Where the project's events are stored and queried. It cannot change later.</p>
      <div class="region-options">
        {regions.map((region, index) => (
          <label key={region.code} class="region-option">
            <input type="radio" name="region" value={region.code} defaultChecked={index === 0} required aria-describedby="region-hint" />
            <span class="region-name">{region.name}</span>
            <span class="region-code">{region.code}</span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}
