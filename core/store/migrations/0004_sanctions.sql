CREATE TABLE "sanctions_list_diffs" (
	"id" text PRIMARY KEY NOT NULL,
	"list_key" text NOT NULL,
	"from_version" text NOT NULL,
	"to_version" text NOT NULL,
	"from_date" text,
	"to_date" text,
	"added_count" integer NOT NULL,
	"removed_count" integer NOT NULL,
	"changed_count" integer NOT NULL,
	"detail" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sanctions_list_versions" (
	"id" text PRIMARY KEY NOT NULL,
	"list_key" text NOT NULL,
	"format" text NOT NULL,
	"publication_date" text,
	"sha256" text NOT NULL,
	"entry_count" integer NOT NULL,
	"source" text NOT NULL,
	"fetched_at" timestamp with time zone NOT NULL,
	"checked_at" timestamp with time zone NOT NULL,
	"entries" "bytea" NOT NULL,
	"warnings" jsonb
);
--> statement-breakpoint
CREATE TABLE "sanctions_refresh_leases" (
	"name" text PRIMARY KEY NOT NULL,
	"holder" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "sanctions_list_diffs_list_created_idx" ON "sanctions_list_diffs" USING btree ("list_key","created_at");--> statement-breakpoint
CREATE INDEX "sanctions_list_versions_list_fetched_idx" ON "sanctions_list_versions" USING btree ("list_key","fetched_at");