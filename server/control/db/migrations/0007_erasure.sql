CREATE TABLE `erasure_requests` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`environment` text NOT NULL,
	`status` text NOT NULL,
	`subject_count` integer NOT NULL,
	`progress_stage` text,
	`progress_done` integer,
	`progress_total` integer,
	`error` text,
	`report` text,
	`certificate` text,
	`created_at` text NOT NULL,
	`started_at` text,
	`completed_at` text,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `erasure_requests_project_idx` ON `erasure_requests` (`project_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `erasure_requests_status_idx` ON `erasure_requests` (`status`);--> statement-breakpoint
CREATE TABLE `erasure_subjects` (
	`request_id` text PRIMARY KEY NOT NULL,
	`subjects` text NOT NULL,
	FOREIGN KEY (`request_id`) REFERENCES `erasure_requests`(`id`) ON UPDATE no action ON DELETE no action
);
