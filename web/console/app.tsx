// The console's routes. Every page is its own chunk, loaded when first opened; the shell and
// the layouts load with the console.
import { Component, type ComponentChildren } from "preact";
import { LocationProvider, Route, Router, lazy } from "preact-iso";
import { Button } from "./ui/button.tsx";
import { ErrorState } from "./ui/states.tsx";

/** A page whose chunk will not load (the console was updated since this tab opened, or the network failed). */
function PageUnavailable({ error }: { error: unknown }) {
  return (
    <main class="centered-page">
      <ErrorState title="This page could not be loaded" error={error} action={<Button variant="primary" onClick={() => location.reload()}>Reload the console</Button>} />
    </main>
  );
}

const page = (load: () => Promise<{ default: () => ComponentChildren }>) =>
  lazy(() => load().catch((error: unknown) => ({ default: () => <PageUnavailable error={error} /> })));

const HomePage = page(() => import("./pages/home.tsx"));
const LoginPage = page(() => import("./pages/auth/login.tsx"));
const SignupPage = page(() => import("./pages/auth/signup.tsx"));
const ForgotPasswordPage = page(() => import("./pages/auth/forgot-password.tsx"));
const ResetPasswordPage = page(() => import("./pages/auth/reset-password.tsx"));
const VerifyEmailPage = page(() => import("./pages/auth/verify-email.tsx"));
const AcceptInvitationPage = page(() => import("./pages/auth/accept-invitation.tsx"));
const NewProjectPage = page(() => import("./pages/projects/new-project.tsx"));
const ProjectHomePage = page(() => import("./pages/projects/project-home.tsx"));
const ProjectSetupPage = page(() => import("./pages/setup/project-setup.tsx"));
const LiveEventsPage = page(() => import("./pages/live/live-events-page.tsx"));
const SqlPage = page(() => import("./pages/sql/sql-page.tsx"));
const CatalogPage = page(() => import("./pages/catalog/catalog-page.tsx"));
const CatalogEventPage = page(() => import("./pages/catalog/catalog-event-page.tsx"));
const IngestionWarningsPage = page(() => import("./pages/ingestion-warnings/ingestion-warnings-page.tsx"));
const FlagsPage = page(() => import("./pages/flags/flags-list.tsx"));
const FlagPage = page(() => import("./pages/flags/flag-editor.tsx"));
const ExperimentsPage = page(() => import("./pages/experiments/experiments-list.tsx"));
const ExperimentPage = page(() => import("./pages/experiments/experiment-page.tsx"));
const ReplaysPage = page(() => import("./pages/replays/replays-list.tsx"));
const ReplayPage = page(() => import("./pages/replays/replay-page.tsx"));
const PersonsPage = page(() => import("./pages/persons/persons-list.tsx"));
const PersonProfilePage = page(() => import("./pages/persons/person-profile.tsx"));
const GroupsPage = page(() => import("./pages/groups/groups-list.tsx"));
const GroupProfilePage = page(() => import("./pages/groups/group-profile.tsx"));
const CohortsPage = page(() => import("./pages/cohorts/cohorts-list.tsx"));
const NewCohortPage = page(() => import("./pages/cohorts/cohort-editor.tsx").then((module) => ({ default: module.NewCohortPage })));
const CohortPage = page(() => import("./pages/cohorts/cohort-editor.tsx"));
const InsightsListPage = page(() => import("./pages/insights/insights-list-page.tsx"));
const InsightBuilderPage = page(() => import("./pages/insights/insight-builder-page.tsx"));
const FindingsPage = page(() => import("./pages/findings/findings-list.tsx"));
const FindingPage = page(() => import("./pages/findings/finding-page.tsx"));
const FindingRulesPage = page(() => import("./pages/findings/rules-page.tsx"));
const FindingDestinationsPage = page(() => import("./pages/findings/destinations-page.tsx"));
const AskPage = page(() => import("./pages/ask/ask-page.tsx"));
const ProjectSettingsPage = page(() => import("./pages/settings/project-settings.tsx"));
const OrgSettingsPage = page(() => import("./pages/orgs/org-settings.tsx"));
const OrgBillingPage = page(() => import("./pages/orgs/org-billing.tsx"));
const AccountPage = page(() => import("./pages/account/account.tsx"));
const SessionsPage = page(() => import("./pages/account/sessions.tsx"));
const TokensPage = page(() => import("./pages/account/tokens.tsx"));
const ConnectionsPage = page(() => import("./pages/account/connections.tsx"));
const ConsentPage = page(() => import("./pages/oauth/consent.tsx"));
const MessagingPage = page(() => import("./pages/messaging/messaging-page.tsx"));
const MailPage = page(() => import("./pages/mail/mail-page.tsx"));
const DashboardsPage = page(() => import("./pages/dashboards/dashboards-list.tsx"));
const DashboardPage = page(() => import("./pages/dashboards/dashboard-page.tsx"));
const NotFoundPage = page(() => import("./pages/not-found.tsx"));

/** A page that throws while rendering shows what happened instead of a blank screen. */
class PageErrorBoundary extends Component<{ children: ComponentChildren }, { error: unknown }> {
  override state = { error: null as unknown };
  override componentDidCatch(error: unknown) {
    this.setState({ error });
  }
  override render() {
    return this.state.error === null ? this.props.children : <PageUnavailable error={this.state.error} />;
  }
}

export function App() {
  return (
    <LocationProvider>
      <PageErrorBoundary>
        <Router>
          <Route path="/" component={HomePage} />
          <Route path="/login" component={LoginPage} />
          <Route path="/signup" component={SignupPage} />
          <Route path="/forgot-password" component={ForgotPasswordPage} />
          <Route path="/reset-password" component={ResetPasswordPage} />
          <Route path="/verify-email" component={VerifyEmailPage} />
          <Route path="/invitations/accept" component={AcceptInvitationPage} />
          <Route path="/projects/new" component={NewProjectPage} />
          <Route path="/projects/:projectId" component={ProjectHomePage} />
          <Route path="/projects/:projectId/setup" component={ProjectSetupPage} />
          <Route path="/projects/:projectId/live" component={LiveEventsPage} />
          <Route path="/projects/:projectId/sql" component={SqlPage} />
          <Route path="/projects/:projectId/catalog" component={CatalogPage} />
          <Route path="/projects/:projectId/catalog/:eventId" component={CatalogEventPage} />
          <Route path="/projects/:projectId/ingestion-warnings" component={IngestionWarningsPage} />
          <Route path="/projects/:projectId/flags" component={FlagsPage} />
          <Route path="/projects/:projectId/flags/:flagId" component={FlagPage} />
          <Route path="/projects/:projectId/experiments" component={ExperimentsPage} />
          <Route path="/projects/:projectId/experiments/:experimentId" component={ExperimentPage} />
          <Route path="/projects/:projectId/replays" component={ReplaysPage} />
          <Route path="/projects/:projectId/replays/:replayId" component={ReplayPage} />
          <Route path="/projects/:projectId/persons" component={PersonsPage} />
          <Route path="/projects/:projectId/persons/:personId" component={PersonProfilePage} />
          <Route path="/projects/:projectId/groups" component={GroupsPage} />
          <Route path="/projects/:projectId/groups/:typeIndex" component={GroupProfilePage} />
          <Route path="/projects/:projectId/cohorts" component={CohortsPage} />
          <Route path="/projects/:projectId/cohorts/new" component={NewCohortPage} />
          <Route path="/projects/:projectId/cohorts/:cohortId" component={CohortPage} />
          <Route path="/projects/:projectId/insights" component={InsightsListPage} />
          <Route path="/projects/:projectId/insights/new" component={InsightBuilderPage} />
          <Route path="/projects/:projectId/insights/:insightId" component={InsightBuilderPage} />
          <Route path="/projects/:projectId/findings" component={FindingsPage} />
          <Route path="/projects/:projectId/findings/rules" component={FindingRulesPage} />
          <Route path="/projects/:projectId/findings/destinations" component={FindingDestinationsPage} />
          <Route path="/projects/:projectId/findings/:findingId" component={FindingPage} />
          <Route path="/projects/:projectId/ask" component={AskPage} />
          <Route path="/projects/:projectId/settings" component={ProjectSettingsPage} />
          <Route path="/orgs/:orgId/settings" component={OrgSettingsPage} />
          <Route path="/orgs/:orgId/billing" component={OrgBillingPage} />
          <Route path="/account" component={AccountPage} />
          <Route path="/account/sessions" component={SessionsPage} />
          <Route path="/account/tokens" component={TokensPage} />
          <Route path="/account/connections" component={ConnectionsPage} />
          <Route path="/consent/:requestId" component={ConsentPage} />
          <Route path="/messaging" component={MessagingPage} />
          <Route path="/email" component={MailPage} />
          <Route path="/projects/:projectId/dashboards" component={DashboardsPage} />
          <Route path="/projects/:projectId/dashboards/:dashboardId" component={DashboardPage} />
          <Route default component={NotFoundPage} />
        </Router>
      </PageErrorBoundary>
    </LocationProvider>
  );
}
