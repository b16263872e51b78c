CREATE TABLE "alert_diff_runs" (
	"diff_id" text PRIMARY KEY NOT NULL,
	"alert_count" integer NOT NULL,
	"processed_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "compliance_alerts" (
	"id" text PRIMARY KEY NOT NULL,
	"diff_id" text NOT NULL,
	"key_id" text,
	"list_key" text NOT NULL,
	"jurisdiction" text NOT NULL,
	"event_type" text NOT NULL,
	"entry_id" text NOT NULL,
	"severity" text NOT NULL,
	"alert" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "watchlist_entries" (
	"id" text PRIMARY KEY NOT NULL,
	"key_id" text NOT NULL,
	"kind" text NOT NULL,
	"value" text NOT NULL,
	"country" text,
	"chain" text,
	"label" text,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_attempts" (
	"id" text PRIMARY KEY NOT NULL,
	"delivery_id" text NOT NULL,
	"webhook_id" text NOT NULL,
	"attempt" integer NOT NULL,
	"status_code" integer,
	"duration_ms" integer NOT NULL,
	"error" text,
	"instance_id" text NOT NULL,
	"at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"webhook_id" text NOT NULL,
	"key_id" text NOT NULL,
	"event" text NOT NULL,
	"event_id" text NOT NULL,
	"body" text NOT NULL,
	"status" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone NOT NULL,
	"locked_until" timestamp with time zone,
	"locked_by" text,
	"last_status_code" integer,
	"last_error" text,
	"created_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "webhooks" (
	"id" text PRIMARY KEY NOT NULL,
	"key_id" text NOT NULL,
	"url" text NOT NULL,
	"events" jsonb NOT NULL,
	"secret" "bytea" NOT NULL,
	"secret_key_id" text NOT NULL,
	"status" text NOT NULL,
	"consecutive_failures" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"deactivated_at" timestamp with time zone
);
--> statement-breakpoint
CREATE UNIQUE INDEX "compliance_alerts_unique_idx" ON "compliance_alerts" USING btree ("diff_id","entry_id","key_id");--> statement-breakpoint
CREATE INDEX "compliance_alerts_key_created_idx" ON "compliance_alerts" USING btree ("key_id","created_at");--> statement-breakpoint
CREATE INDEX "watchlist_entries_key_created_idx" ON "watchlist_entries" USING btree ("key_id","created_at");--> statement-breakpoint
CREATE INDEX "webhook_attempts_delivery_idx" ON "webhook_attempts" USING btree ("delivery_id","attempt");--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_deliveries_event_idx" ON "webhook_deliveries" USING btree ("webhook_id","event_id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries" USING btree ("status","next_attempt_at");--> statement-breakpoint
CREATE INDEX "webhooks_key_idx" ON "webhooks" USING btree ("key_id","status");