CREATE TABLE `experiment_results` (
	`experiment_id` text PRIMARY KEY NOT NULL,
	`body` text NOT NULL,
	`computed_at` text NOT NULL,
	FOREIGN KEY (`experiment_id`) REFERENCES `experiments`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `experiments` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`flag_id` text NOT NULL,
	`key` text NOT NULL,
	`name` text NOT NULL,
	`environment` text NOT NULL,
	`status` text NOT NULL,
	`method` text NOT NULL,
	`alpha` real NOT NULL,
	`power` real NOT NULL,
	`mde` real,
	`attribution_window_hours` integer NOT NULL,
	`control_variant` text NOT NULL,
	`exposure_event` text NOT NULL,
	`primary_metric_id` text,
	`secondary_metric_ids` text NOT NULL,
	`guardrails` text NOT NULL,
	`variants` text NOT NULL,
	`cuped` text,
	`winsor_pct` real,
	`hypothesis` text,
	`decision` text,
	`shipped_variant` text,
	`start_at` text,
	`end_at` text,
	`created_by` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`flag_id`) REFERENCES `flags`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `experiments_project_key_idx` ON `experiments` (`project_id`,`key`);--> statement-breakpoint
CREATE TABLE `metrics` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`key` text NOT NULL,
	`kind` text NOT NULL,
	`name` text NOT NULL,
	`direction` text NOT NULL,
	`certified` integer NOT NULL,
	`monitor` integer NOT NULL,
	`version` integer NOT NULL,
	`query` text NOT NULL,
	`description` text,
	`owner_id` text,
	`unit` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`archived_at` text,
	`certified_at` text,
	`certified_by` text,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `metrics_project_key_idx` ON `metrics` (`project_id`,`key`);