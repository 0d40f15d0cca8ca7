/*
 * ledgercheck_guard: PostgreSQL 16's CREATEROLE rules for PostgreSQL 15.
 *
 * ledgercheck installs untrusted migrations as the role postgres, which is, as on hosted
 * Supabase, NOSUPERUSER CREATEDB CREATEROLE BYPASSRLS. On PostgreSQL 15 CREATEROLE may grant
 * membership in any role that is not a superuser, including the predefined
 * pg_execute_server_program, so a migration could run
 *
 *     GRANT pg_execute_server_program TO postgres;
 *     COPY (SELECT 1) TO PROGRAM '...';
 *
 * PostgreSQL 16 requires ADMIN OPTION on a role to grant, revoke, alter, rename, drop or comment
 * on it, and makes a CREATEROLE user that creates a role an admin of it. This module, loaded with
 * shared_preload_libraries, enforces those rules for non-superusers from a ProcessUtility hook.
 * It only ever refuses more: the core's own checks still run afterwards.
 *
 * See ../README.md.
 */
#include "postgres.h"

#if PG_VERSION_NUM < 150000 || PG_VERSION_NUM >= 160000
#error "ledgercheck_guard is for PostgreSQL 15 only: PostgreSQL 16 and later enforce these rules themselves and need no guard"
#endif

#include "access/xact.h"
#include "catalog/pg_auth_members.h"
#include "catalog/pg_authid.h"
#include "commands/dbcommands.h"
#include "commands/user.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/parsenodes.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/guc.h"
#include "utils/syscache.h"

#ifndef GUARD_VERSION
#error "build with -DGUARD_VERSION=\"<digest of this file>\" (the Makefile beside this file does)"
#endif

PG_MODULE_MAGIC;

#define GUARD_HINT "ledgercheck_guard gives PostgreSQL 15 the CREATEROLE rules of PostgreSQL 16."

void		_PG_init(void);

static ProcessUtility_hook_type prev_ProcessUtility = NULL;

/* ledgercheck_guard.version: the digest of this file, so that a client can tell a stale build. */
static char *guard_version = NULL;

/*
 * holds_admin reports whether member holds ADMIN OPTION on role, as PostgreSQL 16 decides it: a
 * superuser administers every role, no role administers itself, and otherwise the option must be
 * held directly or through a chain of memberships. That is PostgreSQL 15's is_admin_of_role
 * (14 still let the session user administer itself; 15 does not), with the self case decided
 * here so that the rule does not rest on that.
 */
static bool
holds_admin(Oid member, Oid role)
{
	if (superuser_arg(member))
		return true;
	if (member == role)
		return false;
	return is_admin_of_role(member, role);
}

/*
 * require_admin raises PostgreSQL 16's error unless the current user holds ADMIN OPTION on role.
 * action names what was refused: "grant", "revoke", "alter", "rename", "drop" or "comment on".
 * A missing role (InvalidOid) passes: the core reports it, or skips it under IF EXISTS.
 */
static void
require_admin(const char *action, Oid role)
{
	char	   *name;

	if (!OidIsValid(role) || holds_admin(GetUserId(), role))
		return;
	name = GetUserNameFromId(role, false);
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("permission denied to %s role \"%s\"", action, name),
			 errdetail("Only roles with the ADMIN option on role \"%s\" may %s this role.",
					   name, action),
			 errhint(GUARD_HINT)));
}

/*
 * granted_by_other reports whether member's membership in role was granted by a role whose
 * privileges the current user does not have. PostgreSQL 16 revokes only the grants the revoker
 * made (or a role it acts for made): REVOKE r FROM m finds no grant of r to m by the current
 * user and, with a warning, revokes nothing. So a CREATEROLE user cannot drop the ADMIN OPTION
 * the server gave it on a role it created (granted by the bootstrap superuser), and every role it
 * creates stays tied to it. (16 picks one grantor among the roles the user acts for; any role
 * whose privileges the user has stands in for it here.)
 */
static bool
granted_by_other(Oid role, Oid member)
{
	HeapTuple	tup;
	bool		other = false;

	if (!OidIsValid(role) || !OidIsValid(member))
		return false;
	tup = SearchSysCache2(AUTHMEMROLEMEM, ObjectIdGetDatum(role), ObjectIdGetDatum(member));
	if (HeapTupleIsValid(tup))
	{
		other = !has_privs_of_role(GetUserId(), ((Form_pg_auth_members) GETSTRUCT(tup))->grantor);
		ReleaseSysCache(tup);
	}
	return other;
}

/*
 * revocable returns the members among members (RoleSpecs) whose membership in role the current
 * user may revoke, warning as PostgreSQL 16 does for each of the others.
 */
static List *
revocable(Oid role, const char *rolename, List *members)
{
	List	   *out = NIL;
	ListCell   *lc;

	foreach(lc, members)
	{
		Oid			member = get_rolespec_oid(lfirst(lc), true);

		if (granted_by_other(role, member))
			ereport(WARNING,
					(errmsg("role \"%s\" has not been granted membership in role \"%s\" by role \"%s\"",
							GetUserNameFromId(member, false), rolename,
							GetUserNameFromId(GetUserId(), false)),
					 errhint(GUARD_HINT)));
		else
			out = lappend(out, lfirst(lc));
	}
	return out;
}

/* GRANT role TO ..., REVOKE [ADMIN OPTION FOR] role FROM ...: ADMIN OPTION on every role. */
static void
check_grant_role(GrantRoleStmt *stmt)
{
	ListCell   *lc;

	foreach(lc, stmt->granted_roles)
	{
		AccessPriv *priv = lfirst_node(AccessPriv, lc);

		if (priv->priv_name != NULL)	/* else the core rejects it */
			require_admin(stmt->is_grant ? "grant" : "revoke",
						  get_role_oid(priv->priv_name, true));
	}
}

/*
 * A REVOKE (or ALTER GROUP ... DROP USER) of grants others made revokes nothing in PostgreSQL 16,
 * with a warning for each. So does the guard: revoke_split returns the statements to run instead
 * of a REVOKE, one per role with the members whose grant the current user may revoke (none when
 * it may revoke none), or the statement itself when it may revoke every one. The statement is
 * copied, never changed in place (the plan may be cached).
 */
static List *
revoke_split(Node *parsetree)
{
	List	   *out = NIL;
	ListCell   *lc;

	if (IsA(parsetree, GrantRoleStmt) && !((GrantRoleStmt *) parsetree)->is_grant)
	{
		GrantRoleStmt *stmt = (GrantRoleStmt *) parsetree;
		bool		whole = true;

		foreach(lc, stmt->granted_roles)
		{
			AccessPriv *priv = lfirst_node(AccessPriv, lc);
			List	   *members;
			GrantRoleStmt *one;

			if (priv->priv_name == NULL)
				return list_make1(parsetree);
			members = revocable(get_role_oid(priv->priv_name, true), priv->priv_name, stmt->grantee_roles);
			if (list_length(members) != list_length(stmt->grantee_roles))
				whole = false;
			if (members == NIL)
				continue;
			one = copyObject(stmt);
			one->granted_roles = list_make1(copyObject(priv));
			one->grantee_roles = members;
			out = lappend(out, one);
		}
		return whole ? list_make1(parsetree) : out;
	}
	if (IsA(parsetree, AlterRoleStmt) && ((AlterRoleStmt *) parsetree)->action < 0)
	{
		AlterRoleStmt *stmt = (AlterRoleStmt *) parsetree;
		Oid			role = get_rolespec_oid(stmt->role, true);

		if (!OidIsValid(role))
			return list_make1(parsetree);	/* the core reports it */
		foreach(lc, stmt->options)
		{
			DefElem    *opt = lfirst_node(DefElem, lc);
			List	   *members;
			AlterRoleStmt *copy;

			if (strcmp(opt->defname, "rolemembers") != 0)
				continue;
			members = revocable(role, get_rolespec_name(stmt->role), (List *) opt->arg);
			if (list_length(members) == list_length((List *) opt->arg))
				break;
			if (members == NIL)
				return NIL;
			copy = copyObject(stmt);
			copy->options = list_make1(makeDefElem(pstrdup("rolemembers"), (Node *) members, opt->location));
			return list_make1(copy);
		}
	}
	return list_make1(parsetree);
}

/*
 * CREATE ROLE: IN ROLE / IN GROUP (the option "addroleto") grants membership in existing roles, so
 * it needs ADMIN OPTION on each of them; CREATEDB needs the creator to have CREATEDB. Members
 * named with ROLE, USER or ADMIN join the new role, which the creator will administer: allowed.
 * (CREATEROLE needs CREATEROLE, as in PostgreSQL 16, without code here: PostgreSQL 15 lets only
 * CREATEROLE roles and superusers create roles at all.)
 */
static void
check_create_role(CreateRoleStmt *stmt)
{
	ListCell   *lc;

	foreach(lc, stmt->options)
	{
		DefElem    *opt = lfirst_node(DefElem, lc);

		if (strcmp(opt->defname, "addroleto") == 0)
		{
			ListCell   *lc2;

			foreach(lc2, (List *) opt->arg)
				require_admin("grant", get_rolespec_oid(lfirst(lc2), true));
		}
		else if (strcmp(opt->defname, "createdb") == 0 && boolVal(opt->arg) &&
				 !have_createdb_privilege())
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("permission denied to create role \"%s\"", stmt->role),
					 errdetail("Only roles with the CREATEDB attribute may create roles with the CREATEDB attribute."),
					 errhint(GUARD_HINT)));
	}
}

/*
 * ALTER ROLE/USER attributes need ADMIN OPTION on the role, except that a role may change its own
 * password (and nothing else of its own). ALTER GROUP g ADD/DROP USER (the option "rolemembers";
 * stmt->action says which) grants or revokes membership in g, so it needs ADMIN OPTION on g.
 * As in PostgreSQL 16, even an admin may set or clear CREATEDB, REPLICATION or BYPASSRLS only if
 * it has that attribute itself (15's core already keeps REPLICATION and BYPASSRLS, and every
 * change to a superuser, to superusers).
 */
static void
check_alter_role(AlterRoleStmt *stmt)
{
	Oid			role = get_rolespec_oid(stmt->role, true);
	bool		own_password = (role == GetUserId());
	ListCell   *lc;

	foreach(lc, stmt->options)
	{
		DefElem    *opt = lfirst_node(DefElem, lc);

		if (strcmp(opt->defname, "rolemembers") == 0)
			require_admin(stmt->action < 0 ? "revoke" : "grant", role);
		else if (strcmp(opt->defname, "password") != 0)
			own_password = false;
	}
	if (!own_password)
		require_admin("alter", role);
	foreach(lc, stmt->options)
	{
		DefElem    *opt = lfirst_node(DefElem, lc);
		const char *attr = NULL;

		if (strcmp(opt->defname, "createdb") == 0 && !have_createdb_privilege())
			attr = "CREATEDB";
		else if (strcmp(opt->defname, "isreplication") == 0 && !has_rolreplication(GetUserId()))
			attr = "REPLICATION";
		else if (strcmp(opt->defname, "bypassrls") == 0 && !has_bypassrls_privilege(GetUserId()))
			attr = "BYPASSRLS";
		if (attr != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("permission denied to alter role"),
					 errdetail("Only roles with the %s attribute may change the %s attribute.", attr, attr),
					 errhint(GUARD_HINT)));
	}
}

/*
 * check_statement refuses a role statement that PostgreSQL 16 would refuse the current user, who
 * is not a superuser. Statements that touch no role pass untouched.
 */
static void
check_statement(Node *parsetree)
{
	switch (nodeTag(parsetree))
	{
		case T_GrantRoleStmt:
			check_grant_role((GrantRoleStmt *) parsetree);
			break;
		case T_CreateRoleStmt:
			check_create_role((CreateRoleStmt *) parsetree);
			break;
		case T_AlterRoleStmt:
			check_alter_role((AlterRoleStmt *) parsetree);
			break;
		case T_AlterRoleSetStmt:
			{
				/* ALTER ROLE ... SET/RESET: a role may change its own settings. */
				AlterRoleSetStmt *stmt = (AlterRoleSetStmt *) parsetree;
				Oid			role;

				if (stmt->role == NULL)
					break;		/* ALTER ROLE ALL: the core requires a superuser */
				role = get_rolespec_oid(stmt->role, true);
				if (role != GetUserId())
					require_admin("alter", role);
				break;
			}
		case T_DropRoleStmt:
			{
				ListCell   *lc;

				foreach(lc, ((DropRoleStmt *) parsetree)->roles)
					require_admin("drop", get_rolespec_oid(lfirst(lc), true));
				break;
			}
		case T_RenameStmt:
			if (((RenameStmt *) parsetree)->renameType == OBJECT_ROLE)
				require_admin("rename", get_role_oid(((RenameStmt *) parsetree)->subname, true));
			break;
		case T_CommentStmt:
			if (((CommentStmt *) parsetree)->objtype == OBJECT_ROLE)
				require_admin("comment on",
							  get_role_oid(strVal(((CommentStmt *) parsetree)->object), true));
			break;
		default:
			break;
	}
}

/*
 * grant_admin_to_creator makes the current user a member of the role it just created, WITH ADMIN
 * OPTION, as PostgreSQL 16 does, so that it can then grant, alter and drop that role. The grant
 * is made by the bootstrap superuser (also its recorded grantor, as in 16), through GrantRole
 * itself rather than ProcessUtility, so it never re-enters this hook.
 */
static void
grant_admin_to_creator(const char *rolename)
{
	GrantRoleStmt *grant = makeNode(GrantRoleStmt);
	AccessPriv *role = makeNode(AccessPriv);
	RoleSpec   *creator = makeNode(RoleSpec);
	Oid			save_userid;
	int			save_sec_context;

	role->priv_name = pstrdup(rolename);
	creator->roletype = ROLESPEC_CSTRING;
	creator->rolename = GetUserNameFromId(GetUserId(), false);
	creator->location = -1;
	grant->granted_roles = list_make1(role);
	grant->grantee_roles = list_make1(creator);
	grant->is_grant = true;
	grant->admin_opt = true;
	grant->behavior = DROP_RESTRICT;

	/* CREATE ROLE does not always advance the command counter; the grant must see the role. */
	CommandCounterIncrement();

	GetUserIdAndSecContext(&save_userid, &save_sec_context);
	SetUserIdAndSecContext(BOOTSTRAP_SUPERUSERID,
						   save_sec_context | SECURITY_LOCAL_USERID_CHANGE);
	PG_TRY();
	{
		GrantRole(grant);
	}
	PG_FINALLY();
	{
		SetUserIdAndSecContext(save_userid, save_sec_context);
	}
	PG_END_TRY();
}

/*
 * guard_ProcessUtility checks every utility statement of a non-superuser before the core runs it.
 * The context does not matter and is deliberately not tested: role statements reach this hook as
 * a client's statement (PROCESS_UTILITY_TOPLEVEL) and from SPI (PROCESS_UTILITY_QUERY and
 * _QUERY_NONATOMIC: DO blocks, EXECUTE in PL/pgSQL, SQL and PL/pgSQL functions, procedures),
 * and each is checked exactly once, in the call that is about to run it. Nothing here calls
 * ProcessUtility, so no statement is checked or self-granted twice.
 */
static void
guard_ProcessUtility(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree,
					 ProcessUtilityContext context, ParamListInfo params,
					 QueryEnvironment *queryEnv, DestReceiver *dest, QueryCompletion *qc)
{
	Node	   *parsetree = pstmt->utilityStmt;
	bool		guarded = !superuser();
	char	   *created = NULL;

	if (guarded)
	{
		List	   *stmts;
		ListCell   *lc;

		check_statement(parsetree);
		stmts = revoke_split(parsetree);
		if (list_length(stmts) != 1 || linitial(stmts) != parsetree)
		{
			/* A REVOKE of grants others made: only what 16 would revoke (see revoke_split). */
			foreach(lc, stmts)
			{
				PlannedStmt *one = copyObject(pstmt);

				one->utilityStmt = lfirst(lc);
				if (prev_ProcessUtility)
					prev_ProcessUtility(one, queryString, false, context, params, queryEnv, dest, qc);
				else
					standard_ProcessUtility(one, queryString, false, context, params, queryEnv, dest, qc);
			}
			return;
		}
		if (IsA(parsetree, CreateRoleStmt))
			created = pstrdup(((CreateRoleStmt *) parsetree)->role);
	}

	if (prev_ProcessUtility)
		prev_ProcessUtility(pstmt, queryString, readOnlyTree, context, params,
							queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context, params,
								queryEnv, dest, qc);

	if (created != NULL)
		grant_admin_to_creator(created);
}

/*
 * _PG_init installs the hook and defines ledgercheck_guard.version. Loaded any other way than from
 * shared_preload_libraries (LOAD, session_preload_libraries), the module refuses: a guard that
 * covers some sessions only would be worse than none, because it looks like protection.
 */
void
_PG_init(void)
{
	if (!process_shared_preload_libraries_in_progress)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("ledgercheck_guard must be loaded from shared_preload_libraries"),
				 errhint("Start the server with -c shared_preload_libraries=ledgercheck_guard.")));

	DefineCustomStringVariable("ledgercheck_guard.version",
							   "Digest of the ledgercheck_guard source this module was built from.",
							   NULL,
							   &guard_version,
							   GUARD_VERSION,
							   PGC_INTERNAL,
							   GUC_NOT_IN_SAMPLE | GUC_DISALLOW_IN_FILE,
							   NULL, NULL, NULL);
	MarkGUCPrefixReserved("ledgercheck_guard");

	prev_ProcessUtility = ProcessUtility_hook;
	ProcessUtility_hook = guard_ProcessUtility;
}
