CREATE TABLE `flag_environments` (
	`flag_id` text NOT NULL,
	`environment` text NOT NULL,
	`enabled` integer NOT NULL,
	`payload` text,
	`rules` text NOT NULL,
	`salt` text NOT NULL,
	`stickiness` text NOT NULL,
	`variants` text NOT NULL,
	`version` integer NOT NULL,
	`updated_at` text NOT NULL,
	`updated_by` text,
	FOREIGN KEY (`flag_id`) REFERENCES `flags`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `flag_environments_flag_env_idx` ON `flag_environments` (`flag_id`,`environment`);--> statement-breakpoint
CREATE TABLE `flag_publications` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`environment` text NOT NULL,
	`version` integer NOT NULL,
	`checksum` text NOT NULL,
	`snapshot` text NOT NULL,
	`status` text NOT NULL,
	`error` text,
	`created_at` text NOT NULL,
	`published_at` text,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `flag_publications_env_version_idx` ON `flag_publications` (`project_id`,`environment`,`version`);--> statement-breakpoint
CREATE TABLE `flag_secret_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`environment` text NOT NULL,
	`name` text NOT NULL,
	`prefix` text NOT NULL,
	`secret_hash` text NOT NULL,
	`registry_synced` integer NOT NULL,
	`created_at` text NOT NULL,
	`created_by` text,
	`revoked_at` text,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `flag_secret_keys_secret_hash_unique` ON `flag_secret_keys` (`secret_hash`);--> statement-breakpoint
CREATE INDEX `flag_secret_keys_project_idx` ON `flag_secret_keys` (`project_id`);--> statement-breakpoint
CREATE TABLE `flags` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`number` integer NOT NULL,
	`key` text NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`tags` text NOT NULL,
	`description` text,
	`owner_id` text,
	`experiment_id` text,
	`created_by` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`archived_at` text,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `flags_number_unique` ON `flags` (`number`);--> statement-breakpoint
CREATE UNIQUE INDEX `flags_project_key_idx` ON `flags` (`project_id`,`key`);