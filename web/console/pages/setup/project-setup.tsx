// A project's "Get started": its public key per environment, copy-ready snippets that send an
// event with it, and the first event arriving live.
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { useRoute } from "preact-iso";
import { listKeys, listRegions } from "../../api/console-api.ts";
import type { KeyDto, ProjectDto, RegionDto } from "../../api/types.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { orderedEnvironments } from "../../state/environment.ts";
import { ProjectScope } from "../../layouts/project-scope.tsx";
import { CodeBlock } from "../../ui/code-block.tsx";
import { PageTitle } from "../../ui/page-title.tsx";
import { ErrorState, LoadingState } from "../../ui/states.tsx";
import { Tabs } from "../../ui/tabs.tsx";
import { FirstEvent } from "./first-event.tsx";
import { snippet, snippetKinds, type SnippetKind } from "./snippets.ts";

interface SetupData {
  keys: KeyDto[];
  region: RegionDto | undefined;
}

const loadSetup = async (project: ProjectDto): Promise<SetupData> => {
  const [keys, regions] = await Promise.all([listKeys(project.id), listRegions()]);
  return { keys: keys.keys.filter((key) => key.revoked_at === null), region: regions.regions.find((region) => region.code === project.region) };
};

function Step({ number, title, children }: { number: number; title: string; children: ComponentChildren }) {
  return (
    <section class="card step" aria-labelledby={`step-${number}`}>
      <h2 id={`step-${number}`} class="step-title">
        <span class="step-number" aria-hidden="true">{number}</span>
        {title}
      </h2>
      {children}
    </section>
  );
}

function Setup({ project, data }: { project: ProjectDto; data: SetupData }) {
  const environments = orderedEnvironments(project);
  const [environment, setEnvironment] = useState(environments[0]!);
  const [kind, setKind] = useState<SnippetKind>("posthog-js");
  const key = data.keys.find((candidate) => candidate.environment === environment);
  const ingestUrl = data.region?.ingest_host;
  return (
    <>
      <Step number={1} title="Your project key">
        <Tabs label="Environment" tabs={environments.map((name) => ({ id: name, label: name }))} selected={environment} onSelect={setEnvironment}>
          {key ? (
            <>
              <CodeBlock code={key.key} label={`${environment} public key`} />
              <p class="step-note">Public: it can only send events, so it is safe in browser and app code.</p>
            </>
          ) : (
            <p class="step-note">The {environment} environment has no active key.</p>
          )}
        </Tabs>
        {ingestUrl && (
          <>
            <h3 class="step-subtitle">Ingest URL</h3>
            <CodeBlock code={ingestUrl} label="Ingest URL" />
          </>
        )}
      </Step>
      <Step number={2} title="Send an event">
        {key && ingestUrl ? (
          <Tabs label="SDK" tabs={snippetKinds} selected={kind} onSelect={(id) => setKind(id as SnippetKind)}>
            <CodeBlock code={snippet(kind, { key: key.key, ingestUrl })} label={`${snippetKinds.find(({ id }) => id === kind)!.label} snippet`} />
          </Tabs>
        ) : (
          <p class="step-note">Snippets need an active key and a live region.</p>
        )}
      </Step>
      <Step number={3} title="See it arrive">
        <FirstEvent project={project} environment={environment} />
      </Step>
    </>
  );
}

function SetupContent({ project }: { project: ProjectDto }) {
  const [setup, reload] = useResource(() => loadSetup(project), [project.id]);
  return (
    <div class="page page-narrow">
      <PageTitle title="Send your first event">
        Point an SDK at the <span class="text-strong">{project.name}</span> project with its key. Events show up here as soon as they are stored.
      </PageTitle>
      {setup.status === "loading" && <LoadingState label="Loading the project's keys…" />}
      {setup.status === "failed" && <ErrorState title="The keys could not be loaded" error={setup.error} onRetry={reload} />}
      {setup.status === "ready" && <Setup project={project} data={setup.data} />}
    </div>
  );
}

export default function ProjectSetupPage() {
  const { params } = useRoute();
  return <ProjectScope projectId={params.projectId!}>{(project) => <SetupContent project={project} />}</ProjectScope>;
}
