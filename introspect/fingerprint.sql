-- The catalog's fingerprint, less its roles: for each system catalog, how many rows this
-- database sees and the sum of their xmin. A row inserted, updated or deleted after the
-- fingerprint was read changes it: an update or an insert writes a row version whose xmin is
-- newer than every xmin read before, and a deletion lowers the count. Left out: planner
-- statistics (pg_statistic, pg_statistic_ext_data) and large objects' data (pg_largeobject),
-- which no snapshot reads; the roles (pg_authid, pg_auth_members), which other runs of the
-- cluster change and which Snapshot.Fingerprint compares as the snapshot shows them; and of the
-- shared catalogs pg_database, pg_shdepend and pg_db_role_setting, the rows of other databases,
-- which installs running beside this one add (a role's settings for every database are in the
-- snapshot's roles). Every other table of pg_catalog is listed
-- (TestFingerprintCoversEveryCatalog). Runs on a superuser session: every name is pg_catalog's.
SELECT pg_catalog.string_agg(c OPERATOR(pg_catalog.||) ':' OPERATOR(pg_catalog.||) n OPERATOR(pg_catalog.||) ':' OPERATOR(pg_catalog.||) coalesce(x, 0), ' ' ORDER BY c)
FROM (
  SELECT 'pg_aggregate' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_aggregate
  UNION ALL
  SELECT 'pg_am' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_am
  UNION ALL
  SELECT 'pg_amop' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_amop
  UNION ALL
  SELECT 'pg_amproc' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_amproc
  UNION ALL
  SELECT 'pg_attrdef' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_attrdef
  UNION ALL
  SELECT 'pg_attribute' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_attribute
  UNION ALL
  SELECT 'pg_cast' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_cast
  UNION ALL
  SELECT 'pg_class' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_class
  UNION ALL
  SELECT 'pg_collation' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_collation
  UNION ALL
  SELECT 'pg_constraint' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_constraint
  UNION ALL
  SELECT 'pg_conversion' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_conversion
  UNION ALL
  SELECT 'pg_database' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_database WHERE datname OPERATOR(pg_catalog.=) pg_catalog.current_database()
  UNION ALL
  SELECT 'pg_db_role_setting' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_db_role_setting WHERE setdatabase OPERATOR(pg_catalog.=) (SELECT oid FROM pg_catalog.pg_database WHERE datname OPERATOR(pg_catalog.=) pg_catalog.current_database())
  UNION ALL
  SELECT 'pg_default_acl' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_default_acl
  UNION ALL
  SELECT 'pg_depend' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_depend
  UNION ALL
  SELECT 'pg_description' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_description
  UNION ALL
  SELECT 'pg_enum' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_enum
  UNION ALL
  SELECT 'pg_event_trigger' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_event_trigger
  UNION ALL
  SELECT 'pg_extension' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_extension
  UNION ALL
  SELECT 'pg_foreign_data_wrapper' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_foreign_data_wrapper
  UNION ALL
  SELECT 'pg_foreign_server' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_foreign_server
  UNION ALL
  SELECT 'pg_foreign_table' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_foreign_table
  UNION ALL
  SELECT 'pg_index' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_index
  UNION ALL
  SELECT 'pg_inherits' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_inherits
  UNION ALL
  SELECT 'pg_init_privs' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_init_privs
  UNION ALL
  SELECT 'pg_language' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_language
  UNION ALL
  SELECT 'pg_largeobject_metadata' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_largeobject_metadata
  UNION ALL
  SELECT 'pg_namespace' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_namespace
  UNION ALL
  SELECT 'pg_opclass' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_opclass
  UNION ALL
  SELECT 'pg_operator' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_operator
  UNION ALL
  SELECT 'pg_opfamily' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_opfamily
  UNION ALL
  SELECT 'pg_parameter_acl' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_parameter_acl
  UNION ALL
  SELECT 'pg_partitioned_table' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_partitioned_table
  UNION ALL
  SELECT 'pg_policy' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_policy
  UNION ALL
  SELECT 'pg_proc' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_proc
  UNION ALL
  SELECT 'pg_publication' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_publication
  UNION ALL
  SELECT 'pg_publication_namespace' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_publication_namespace
  UNION ALL
  SELECT 'pg_publication_rel' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_publication_rel
  UNION ALL
  SELECT 'pg_range' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_range
  UNION ALL
  SELECT 'pg_replication_origin' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_replication_origin
  UNION ALL
  SELECT 'pg_rewrite' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_rewrite
  UNION ALL
  SELECT 'pg_seclabel' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_seclabel
  UNION ALL
  SELECT 'pg_sequence' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_sequence
  UNION ALL
  SELECT 'pg_shdepend' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_shdepend WHERE dbid OPERATOR(pg_catalog.=) (SELECT oid FROM pg_catalog.pg_database WHERE datname OPERATOR(pg_catalog.=) pg_catalog.current_database())
  UNION ALL
  SELECT 'pg_shdescription' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_shdescription
  UNION ALL
  SELECT 'pg_shseclabel' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_shseclabel
  UNION ALL
  SELECT 'pg_statistic_ext' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_statistic_ext
  UNION ALL
  SELECT 'pg_subscription' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_subscription
  UNION ALL
  SELECT 'pg_subscription_rel' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_subscription_rel
  UNION ALL
  SELECT 'pg_tablespace' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_tablespace
  UNION ALL
  SELECT 'pg_transform' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_transform
  UNION ALL
  SELECT 'pg_trigger' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_trigger
  UNION ALL
  SELECT 'pg_ts_config' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_ts_config
  UNION ALL
  SELECT 'pg_ts_config_map' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_ts_config_map
  UNION ALL
  SELECT 'pg_ts_dict' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_ts_dict
  UNION ALL
  SELECT 'pg_ts_parser' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_ts_parser
  UNION ALL
  SELECT 'pg_ts_template' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_ts_template
  UNION ALL
  SELECT 'pg_type' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_type
  UNION ALL
  SELECT 'pg_user_mapping' AS c, pg_catalog.count(*) AS n, pg_catalog.sum((xmin::pg_catalog.text)::pg_catalog.int8) AS x FROM pg_catalog.pg_user_mapping
) f
