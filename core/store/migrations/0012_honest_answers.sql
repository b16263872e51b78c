CREATE TABLE "maintenance_state" (
	"id" text PRIMARY KEY NOT NULL,
	"enabled" boolean NOT NULL,
	"message" text NOT NULL,
	"retry_after_seconds" integer NOT NULL,
	"changed_at" timestamp with time zone NOT NULL,
	"changed_by" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "provider_registrations" (
	"key" text PRIMARY KEY NOT NULL,
	"first_configured_at" timestamp with time zone NOT NULL
);
