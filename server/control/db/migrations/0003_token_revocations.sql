CREATE TABLE `region_token_revocations` (
	`id` text NOT NULL,
	`region` text NOT NULL,
	`org_id` text,
	`user_id` text,
	`project_id` text,
	`access_token_id` text,
	`issued_up_to` integer NOT NULL,
	`keep_until` integer NOT NULL,
	`scopes` text,
	`reason` text NOT NULL,
	`synced` integer NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `region_token_revocations_id_region_idx` ON `region_token_revocations` (`id`,`region`);--> statement-breakpoint
CREATE INDEX `region_token_revocations_synced_idx` ON `region_token_revocations` (`synced`);