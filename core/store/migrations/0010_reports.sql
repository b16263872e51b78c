CREATE TABLE "entity_reports" (
	"id" text PRIMARY KEY NOT NULL,
	"owner" text NOT NULL,
	"key_id" text,
	"check_id" text NOT NULL,
	"entity_hash" text NOT NULL,
	"trust_level" text NOT NULL,
	"report" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "report_identifiers" (
	"report_id" text NOT NULL,
	"owner" text NOT NULL,
	"kind" text NOT NULL,
	"value" text NOT NULL,
	CONSTRAINT "report_identifiers_report_id_kind_value_pk" PRIMARY KEY("report_id","kind","value")
);
--> statement-breakpoint
ALTER TABLE "report_identifiers" ADD CONSTRAINT "report_identifiers_report_id_entity_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "public"."entity_reports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "entity_reports_owner_idx" ON "entity_reports" USING btree ("owner","created_at");--> statement-breakpoint
CREATE INDEX "entity_reports_entity_idx" ON "entity_reports" USING btree ("entity_hash","created_at");--> statement-breakpoint
CREATE INDEX "report_identifiers_owner_value_idx" ON "report_identifiers" USING btree ("owner","kind","value");