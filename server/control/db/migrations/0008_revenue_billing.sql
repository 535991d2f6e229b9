CREATE TABLE `integrations` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`provider` text NOT NULL,
	`name` text,
	`status` text NOT NULL,
	`token` text NOT NULL,
	`secret` text,
	`secret_last4` text,
	`config` text NOT NULL,
	`region_synced` integer DEFAULT false NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `integrations_token_unique` ON `integrations` (`token`);--> statement-breakpoint
CREATE INDEX `integrations_project_idx` ON `integrations` (`project_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `org_billing` (
	`org_id` text PRIMARY KEY NOT NULL,
	`plan` text NOT NULL,
	`spend_cap_minor` integer,
	`customer_id` text,
	`subscription_id` text,
	`subscription_status` text,
	`current_period_start` text,
	`current_period_end` text,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `orgs`(`id`) ON UPDATE no action ON DELETE no action
);
