CREATE TABLE "kbo_activities" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"generation" integer NOT NULL,
	"entity_number" text NOT NULL,
	"activity_group" text NOT NULL,
	"nace_version" text NOT NULL,
	"nace_code" text NOT NULL,
	"classification" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "kbo_addresses" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"generation" integer NOT NULL,
	"entity_number" text NOT NULL,
	"type_of_address" text NOT NULL,
	"country_nl" text,
	"country_fr" text,
	"zipcode" text,
	"municipality_nl" text,
	"municipality_fr" text,
	"street_nl" text,
	"street_fr" text,
	"house_number" text,
	"box" text,
	"extra_address_info" text,
	"date_striking_off" text
);
--> statement-breakpoint
CREATE TABLE "kbo_codes" (
	"category" text NOT NULL,
	"code" text NOT NULL,
	"language" text NOT NULL,
	"description" text NOT NULL,
	CONSTRAINT "kbo_codes_category_code_language_pk" PRIMARY KEY("category","code","language")
);
--> statement-breakpoint
CREATE TABLE "kbo_denominations" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"generation" integer NOT NULL,
	"entity_number" text NOT NULL,
	"language" text NOT NULL,
	"type_of_denomination" text NOT NULL,
	"denomination" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "kbo_enterprises" (
	"generation" integer NOT NULL,
	"enterprise_number" text NOT NULL,
	"status" text NOT NULL,
	"juridical_situation" text NOT NULL,
	"type_of_enterprise" text NOT NULL,
	"juridical_form" text,
	"juridical_form_cac" text,
	"start_date" text,
	CONSTRAINT "kbo_enterprises_generation_enterprise_number_pk" PRIMARY KEY("generation","enterprise_number")
);
--> statement-breakpoint
CREATE TABLE "kbo_import_state" (
	"id" integer PRIMARY KEY NOT NULL,
	"live_generation" integer,
	"building_generation" integer,
	"extract_type" text,
	"extract_number" text,
	"snapshot_date" text,
	"imported_at" text
);
--> statement-breakpoint
CREATE TABLE "kbo_pending_stops" (
	"enterprise_number" text PRIMARY KEY NOT NULL,
	"enterprise" jsonb NOT NULL,
	"names" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "kbo_stopped" (
	"enterprise_number" text PRIMARY KEY NOT NULL,
	"enterprise" jsonb NOT NULL,
	"names" jsonb NOT NULL,
	"extract" text NOT NULL
);
--> statement-breakpoint
CREATE INDEX "kbo_activities_entity_idx" ON "kbo_activities" USING btree ("generation","entity_number");--> statement-breakpoint
CREATE INDEX "kbo_addresses_entity_idx" ON "kbo_addresses" USING btree ("generation","entity_number");--> statement-breakpoint
CREATE INDEX "kbo_denominations_entity_idx" ON "kbo_denominations" USING btree ("generation","entity_number");