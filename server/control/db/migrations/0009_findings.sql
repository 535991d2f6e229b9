CREATE TABLE `findings_destinations` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`kind` text NOT NULL,
	`name` text NOT NULL,
	`enabled` integer NOT NULL,
	`min_severity` text NOT NULL,
	`config` text NOT NULL,
	`secret` text,
	`signing_secret` text,
	`secret_hint` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`created_by` text,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `findings_destinations_project_idx` ON `findings_destinations` (`project_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `findings_rules` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`name` text NOT NULL,
	`cadence` text NOT NULL,
	`enabled` integer NOT NULL,
	`min_severity` text NOT NULL,
	`destination_ids` text NOT NULL,
	`target` text NOT NULL,
	`thresholds` text NOT NULL,
	`daily_cap` integer,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`created_by` text,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `findings_rules_project_idx` ON `findings_rules` (`project_id`,`created_at`);