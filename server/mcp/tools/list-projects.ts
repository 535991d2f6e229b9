import { listProjects } from "../../control/services/projects.ts";
import { defineTool } from "../tool.ts";

export const listProjectsTool = defineTool({
  name: "list_projects",
  title: "List projects",
  description: "The projects this token can read in its organisation: id, name, region, time zone, currency and environments. Start here: every other tool takes a project_id.",
  scope: "projects:read",
  input: {},
  run(call) {
    const { projects } = listProjects(call.ctx, call.org());
    return {
      projects: projects.map((project) => ({
        id: project.id, name: project.name, region: project.region, timezone: project.timezone, currency: project.currency,
        environments: project.environments.map((environment) => environment.name), role: project.role,
      })),
    };
  },
});
