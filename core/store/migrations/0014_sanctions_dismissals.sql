CREATE TABLE "sanctions_dismissals" (
	"id" text PRIMARY KEY NOT NULL,
	"key_id" text NOT NULL,
	"subject_type" text NOT NULL,
	"subject" text NOT NULL,
	"subject_key" text NOT NULL,
	"list_key" text NOT NULL,
	"entry_id" text NOT NULL,
	"entry_name" text NOT NULL,
	"entry_fingerprint" text NOT NULL,
	"reason" text NOT NULL,
	"dismissed_by" text NOT NULL,
	"status" text NOT NULL,
	"reopened_at" timestamp with time zone,
	"reopened_reason" text,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "sanctions_dismissals_subject_entry_idx" ON "sanctions_dismissals" USING btree ("key_id","subject_type","subject_key","list_key","entry_id");--> statement-breakpoint
CREATE INDEX "sanctions_dismissals_key_created_idx" ON "sanctions_dismissals" USING btree ("key_id","created_at","id");