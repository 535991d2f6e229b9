// Create a project (the first one, right after signing up, or another from the switcher):
// name, organisation, region, time zone and currency; then on to sending its first event.
import { useMemo } from "preact/hooks";
import { useLocation } from "preact-iso";
import { createProject, listRegions } from "../../api/console-api.ts";
import type { MeResponse, RegionDto } from "../../api/types.ts";
import { fieldText, useFormAction } from "../../hooks/use-form-action.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { FocusLayout } from "../../layouts/focus-layout.tsx";
import { RequireSignedIn } from "../../layouts/guards.tsx";
import { paths } from "../../paths.ts";
import { Button } from "../../ui/button.tsx";
import { SelectField, TextField } from "../../ui/field.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { PageTitle } from "../../ui/page-title.tsx";
import { MailIcon } from "../../ui/icons.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../ui/states.tsx";
import { nameLengthMax } from "../auth/account-rules.ts";
import { browserTimeZone, currencyOptions, defaultCurrency, timeZoneOptions } from "./project-options.ts";
import { RegionChoice } from "./region-choice.tsx";

function ProjectForm({ me, regions, orgId }: { me: MeResponse; regions: RegionDto[]; orgId: string }) {
  const { route } = useLocation();
  const zones = useMemo(timeZoneOptions, []);
  const initialZone = useMemo(browserTimeZone, []);
  const currencies = useMemo(currencyOptions, []);
  const form = useFormAction(async (fields) => {
    const created = await createProject(fieldText(fields, "org"), {
      name: fieldText(fields, "name").trim(),
      region: fieldText(fields, "region"),
      timezone: fieldText(fields, "timezone"),
      currency: fieldText(fields, "currency"),
    });
    route(paths.projectSetup(created.project.id));
  });
  return (
    <form class="form form-wide" onSubmit={form.onSubmit}>
      <FormError error={form.error} />
      <TextField label="Project name" name="name" required maxLength={nameLengthMax} placeholder="My app" hint="Usually the product or app whose events it collects." />
      {me.orgs.length > 1 ? (
        <SelectField label="Organisation" name="org">
          {me.orgs.map((org) => (
            <option key={org.id} value={org.id} selected={org.id === orgId}>{org.name}</option>
          ))}
        </SelectField>
      ) : (
        <input type="hidden" name="org" value={orgId} />
      )}
      <RegionChoice regions={regions} />
      <div class="field-row">
        <SelectField label="Time zone" name="timezone" hint="Days and weeks in charts start at midnight here.">
          {zones.map((zone) => (
            <option key={zone} value={zone} selected={zone === initialZone}>{zone}</option>
          ))}
        </SelectField>
        <SelectField label="Currency" name="currency" hint="Revenue is shown in it.">
          {currencies.map(({ code, label }) => (
            <option key={code} value={code} selected={code === defaultCurrency}>{label}</option>
          ))}
        </SelectField>
      </div>
      <Button type="submit" variant="primary" busy={form.busy}>
        Create project
      </Button>
    </form>
  );
}

function RegionsThenForm({ me, orgId }: { me: MeResponse; orgId: string }) {
  const [regions, reload] = useResource(listRegions, []);
  if (regions.status === "loading") return <LoadingState label="Loading regions…" />;
  if (regions.status === "failed") return <ErrorState title="Regions could not be loaded" error={regions.error} onRetry={reload} />;
  return <ProjectForm me={me} regions={regions.data.regions} orgId={orgId} />;
}

function NewProject({ me }: { me: MeResponse }) {
  const { query } = useLocation();
  const orgId = me.orgs.some((org) => org.id === query.org) ? query.org : me.orgs[0]?.id;
  return (
    <FocusLayout me={me}>
      <PageTitle title="Create a project">A project collects the events of one product and holds its keys, insights and people.</PageTitle>
      {orgId === undefined ? (
        <EmptyState icon={<MailIcon size={20} />} title="You belong to no organisation">
          A project lives in an organisation. Ask an organisation's admin to invite you; the invitation's link brings you back here.
        </EmptyState>
      ) : (
        <RegionsThenForm me={me} orgId={orgId} />
      )}
    </FocusLayout>
  );
}

export default function NewProjectPage() {
  return <RequireSignedIn>{(me) => <NewProject me={me} />}</RequireSignedIn>;
}
