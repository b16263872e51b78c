CREATE TABLE "entity_checks" (
	"id" text PRIMARY KEY NOT NULL,
	"owner" text NOT NULL,
	"key_id" text,
	"operation" text NOT NULL,
	"entity_hash" text NOT NULL,
	"input_hash" text NOT NULL,
	"quality" text NOT NULL,
	"input" jsonb NOT NULL,
	"result" jsonb NOT NULL,
	"trust_score" integer,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "entity_checks_owner_entity_idx" ON "entity_checks" USING btree ("owner","entity_hash","created_at");--> statement-breakpoint
CREATE INDEX "entity_checks_owner_input_idx" ON "entity_checks" USING btree ("owner","operation","input_hash","created_at");