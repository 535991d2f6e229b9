CREATE TABLE `annotations` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`content` text NOT NULL,
	`kind` text NOT NULL,
	`occurred_at` text NOT NULL,
	`source` text NOT NULL,
	`ref` text,
	`created_by` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `annotations_project_time_idx` ON `annotations` (`project_id`,`occurred_at`);--> statement-breakpoint
CREATE TABLE `catalog_events` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`status` text NOT NULL,
	`pii_level` text NOT NULL,
	`platforms` text NOT NULL,
	`tags` text NOT NULL,
	`version` integer NOT NULL,
	`volume_30d` integer,
	`description` text,
	`display_name` text,
	`first_seen_at` text,
	`last_seen_at` text,
	`owner_id` text,
	`question` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `catalog_events_project_name_idx` ON `catalog_events` (`project_id`,`name`);--> statement-breakpoint
CREATE TABLE `catalog_properties` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`event_id` text,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`scope` text NOT NULL,
	`pii` integer NOT NULL,
	`required` integer NOT NULL,
	`description` text,
	`enum_values` text,
	`example` text,
	`position` integer NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`event_id`) REFERENCES `catalog_events`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `catalog_properties_event_idx` ON `catalog_properties` (`event_id`);--> statement-breakpoint
CREATE INDEX `catalog_properties_project_idx` ON `catalog_properties` (`project_id`);--> statement-breakpoint
CREATE TABLE `catalog_settings` (
	`project_id` text PRIMARY KEY NOT NULL,
	`catalog_version` integer NOT NULL,
	`warn_on_violations` integer NOT NULL,
	`synced_at` text,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `cohort_calculations` (
	`cohort_id` text NOT NULL,
	`environment` text NOT NULL,
	`status` text NOT NULL,
	`calculated_at` text NOT NULL,
	`cohort_version` integer,
	`size` integer,
	`error` text,
	FOREIGN KEY (`cohort_id`) REFERENCES `cohorts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `cohort_calculations_cohort_env_idx` ON `cohort_calculations` (`cohort_id`,`environment`);--> statement-breakpoint
CREATE TABLE `cohorts` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`kind` text NOT NULL,
	`definition` text,
	`version` integer NOT NULL,
	`created_by` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `cohorts_project_idx` ON `cohorts` (`project_id`,`deleted_at`);--> statement-breakpoint
CREATE TABLE `dashboard_tiles` (
	`id` text PRIMARY KEY NOT NULL,
	`dashboard_id` text NOT NULL,
	`kind` text NOT NULL,
	`insight_id` text,
	`body` text,
	`layout` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`dashboard_id`) REFERENCES `dashboards`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`insight_id`) REFERENCES `insights`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `dashboard_tiles_dashboard_idx` ON `dashboard_tiles` (`dashboard_id`);--> statement-breakpoint
CREATE INDEX `dashboard_tiles_insight_idx` ON `dashboard_tiles` (`insight_id`);--> statement-breakpoint
CREATE TABLE `dashboards` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`tags` text NOT NULL,
	`is_home` integer NOT NULL,
	`date_range` text,
	`filters` text,
	`created_by` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `dashboards_project_idx` ON `dashboards` (`project_id`,`deleted_at`);--> statement-breakpoint
CREATE TABLE `insight_favorites` (
	`insight_id` text NOT NULL,
	`user_id` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`insight_id`) REFERENCES `insights`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `insight_favorites_insight_user_idx` ON `insight_favorites` (`insight_id`,`user_id`);--> statement-breakpoint
CREATE INDEX `insight_favorites_user_idx` ON `insight_favorites` (`user_id`);--> statement-breakpoint
CREATE TABLE `insights` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`kind` text NOT NULL,
	`query` text NOT NULL,
	`viz` text NOT NULL,
	`tags` text NOT NULL,
	`created_via` text NOT NULL,
	`created_by` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `insights_project_idx` ON `insights` (`project_id`,`deleted_at`);