// An organisation's settings (/orgs/{orgId}/settings): its name, its members and their roles,
// and invitations. Linked from the project switcher and the account page.
import { useState } from "preact/hooks";
import { useRoute } from "preact-iso";
import { listMembers, renameOrg } from "../../api/settings-api.ts";
import type { MembersResponse } from "../../api/settings-types.ts";
import type { MeResponse, OrgDto } from "../../api/types.ts";
import { fieldText, useFormAction } from "../../hooks/use-form-action.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { FocusLayout } from "../../layouts/focus-layout.tsx";
import { RequireSignedIn } from "../../layouts/guards.tsx";
import { paths } from "../../paths.ts";
import { loadSession } from "../../state/session.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button, LinkButton } from "../../ui/button.tsx";
import { TextField } from "../../ui/field.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { SearchOffIcon } from "../../ui/icons.tsx";
import { PageTitle } from "../../ui/page-title.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../ui/states.tsx";
import { nameLengthMax } from "../auth/account-rules.ts";
import { adminOnlyReason } from "../settings/permissions.ts";
import { Fact, roleNoteId, SettingsSection } from "../settings/settings-section.tsx";
import { InviteForm, PendingInvitations } from "./invitations-section.tsx";
import { MembersTable } from "./members-section.tsx";
import { managesMembers } from "./roles.ts";

function GeneralSection({ org }: { org: OrgDto }) {
  const blocked = adminOnlyReason(org.role, "rename the organisation");
  const [name, setName] = useState(org.name);
  const [saved, setSaved] = useState(false);
  const form = useFormAction(async (fields) => {
    setSaved(false);
    const typed = fieldText(fields, "name").trim();
    if (!typed) throw new Error("the name must not be empty");
    const renamed = await renameOrg(org.id, typed);
    setName(renamed.name);
    await loadSession();
    setSaved(true);
  });
  const describedBy = blocked ? roleNoteId("org-general") : undefined;
  return (
    <SettingsSection id="org-general" title="General" blockedReason={blocked}>
      <form class="form settings-form" onSubmit={form.onSubmit}>
        <FormError error={form.error} />
        {saved && <Alert tone="success">The organisation is renamed.</Alert>}
        <div class="inline-form">
          <TextField label="Organisation name" name="name" required maxLength={nameLengthMax} value={name} onInput={(event) => setName(event.currentTarget.value)} disabled={blocked !== null} aria-describedby={describedBy} />
          <Button type="submit" variant="primary" busy={form.busy} disabled={blocked !== null} aria-describedby={describedBy}>Save name</Button>
        </div>
      </form>
      <dl class="facts">
        <Fact term="Your role">{org.role}</Fact>
        <Fact term="Slug"><code>{org.slug}</code></Fact>
        <Fact term="Organisation ID" wide><code>{org.id}</code></Fact>
        <Fact term="Billing"><a href={paths.orgBilling(org.id)}>Plan, usage and spend cap</a></Fact>
      </dl>
    </SettingsSection>
  );
}

function People({ me, org, initial }: { me: MeResponse; org: OrgDto; initial: MembersResponse }) {
  const [members, setMembers] = useState(initial.members);
  const [invitations, setInvitations] = useState(initial.invitations);
  const manages = managesMembers(org.role);
  return (
    <>
      <SettingsSection
        id="members"
        title="Members"
        description="Viewers read everything; members also write, except projects and the organisation; admins do everything but billing; owners everything. Only an owner makes or changes an owner."
        blockedReason={manages ? null : adminOnlyReason(org.role, "change roles or remove members")}
      >
        <MembersTable me={me} org={org} members={members} onChange={setMembers} />
      </SettingsSection>
      <SettingsSection
        id="invitations"
        title="Invitations"
        description="An invitation is mailed with a link to join, valid for 7 days; the person signs in or signs up with the invited address to accept it."
        blockedReason={manages ? null : adminOnlyReason(org.role, "see and send invitations")}
      >
        {manages && (
          <>
            <InviteForm org={org} invitations={invitations} onChange={setInvitations} />
            <PendingInvitations org={org} invitations={invitations} onChange={setInvitations} />
          </>
        )}
      </SettingsSection>
    </>
  );
}

function OrgSettings({ me, org }: { me: MeResponse; org: OrgDto }) {
  const [people, reload] = useResource(() => listMembers(org.id), [org.id]);
  return (
    <div class="page settings-page settings-wide">
      <PageTitle title="Organisation settings">
        <span class="text-strong">{org.name}</span>: its name, members and invitations.
      </PageTitle>
      <GeneralSection org={org} />
      {people.status === "loading" && <LoadingState label="Loading the members…" />}
      {people.status === "failed" && <ErrorState title="The members could not be loaded" error={people.error} onRetry={reload} />}
      {people.status === "ready" && <People me={me} org={org} initial={people.data} />}
    </div>
  );
}

function OrgNotFound() {
  return (
    <div class="page settings-wide">
      <PageTitle title="Organisation settings" />
      <EmptyState icon={<SearchOffIcon size={20} />} title="Organisation not found" action={<LinkButton href={paths.account} variant="primary">See your organisations</LinkButton>}>
        You are not a member of it, or you left it.
      </EmptyState>
    </div>
  );
}

export default function OrgSettingsPage() {
  const { params } = useRoute();
  return (
    <RequireSignedIn>
      {(me) => {
        const org = me.orgs.find((candidate) => candidate.id === params.orgId);
        return <FocusLayout me={me}>{org ? <OrgSettings me={me} org={org} /> : <OrgNotFound />}</FocusLayout>;
      }}
    </RequireSignedIn>
  );
}
