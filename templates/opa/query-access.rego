# Access decisions of the SQL query engine for the data platform (gateway contract,
# steps 7 and 8), evaluated by Trino's OPA access control:
#   opa.policy.uri         = <opa>/v1/data/dpgw/query_access/allow
#   opa.policy.batched-uri = <opa>/v1/data/dpgw/query_access/batch
#
# What the policy reads besides Trino's input (input.context.identity.{user,groups},
# input.action.{operation,resource,filterResources}):
#   data.dpgw.grants[<table>].groups: the groups that may read an analytics table. The
#     platform's authorization service writes it when it creates the permissions of a
#     data set (the storage touch before platform 1.15.165, table creation from it on).
#   data.dpgw.settings.catalog: the analytics catalog's name in the engine (default pinot).
#   data.dpgw.settings.impersonators: services that run queries for a signed-in user (the
#     dashboard tool's database connection); that user's own groups then decide (default none).
#
# A member of a granted group sees schema `default`, the table, and can query it. Anyone
# else sees no schema and no table of the analytics catalog, and a SELECT is denied.
package dpgw.query_access

import rego.v1

default analytics_catalog := "pinot"

analytics_catalog := data.dpgw.settings.catalog

# The schema of the query engine in which registered tables appear.
analytics_schema := "default"

identity_groups contains group if some group in input.context.identity.groups

readable_tables contains table if {
	some table, grant in data.dpgw.grants
	some group in grant.groups
	group in identity_groups
}

in_analytics_catalog(resource) if resource.catalogName == analytics_catalog

readable(table) if {
	in_analytics_catalog(table)
	table.schemaName == analytics_schema
	table.tableName in readable_tables
}

# The engine's own metadata tables; what they list is filtered by the rules below.
information_schema(resource) if resource.schemaName == "information_schema"

# A schema is listed to someone who can read a table in it.
schema_listed(schema) if {
	in_analytics_catalog(schema)
	schema.schemaName in {analytics_schema, "information_schema"}
	count(readable_tables) > 0
}

table_listed(table) if readable(table)

table_listed(table) if {
	information_schema(table)
	count(readable_tables) > 0
}

default allow := false

# Running queries and browsing (whose results are filtered) is every signed-in user's.
allow if input.action.operation in {"ExecuteQuery", "AccessCatalog", "FilterCatalogs", "ShowSchemas", "ShowTables"}

allow if {
	input.action.operation in {"SelectFromColumns", "ShowColumns"}
	readable(input.action.resource.table)
}

allow if {
	input.action.operation in {"SelectFromColumns", "ShowColumns", "FilterColumns"}
	information_schema(input.action.resource.table)
}

allow if {
	input.action.operation == "FilterSchemas"
	schema_listed(input.action.resource.schema)
}

allow if {
	input.action.operation == "FilterTables"
	table_listed(input.action.resource.table)
}

allow if {
	input.action.operation == "FilterColumns"
	readable(input.action.resource.table)
}

default impersonators := []

impersonators := data.dpgw.settings.impersonators

allow if {
	input.action.operation == "ImpersonateUser"
	input.context.identity.user in impersonators
}

# A user's own queries.
allow if {
	input.action.operation in {"ViewQueryOwnedBy", "KillQueryOwnedBy", "FilterViewQueryOwnedBy"}
	input.action.resource.user.user == input.context.identity.user
}

# Batched filtering: the indices of input.action.filterResources that pass; for
# FilterColumns, the indices of the one table's columns.
batch contains i if {
	input.action.operation != "FilterColumns"
	some i, resource in input.action.filterResources
	allow with input.action.resource as resource
}

batch contains i if {
	input.action.operation == "FilterColumns"
	table := input.action.filterResources[0].table
	allow with input.action.resource as {"table": table}
	some i, _ in table.columns
}
