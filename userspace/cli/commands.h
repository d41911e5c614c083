/* SPDX-License-Identifier: MIT */
/* The subcommands of vsc: each is `int cmd_NAME(int argc, char **argv)` in
 * NAME.c, gets argv[0] == "NAME", and returns the exit status. */
#ifndef VSC_CLI_COMMANDS_H
#define VSC_CLI_COMMANDS_H

int cmd_check(int argc, char **argv);
int cmd_encode(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_litmus(int argc, char **argv);

/* Exit statuses shared by every subcommand (CONTRACT.md section 3). */
enum {
	EXIT_CONSISTENT = 0,
	EXIT_INCONSISTENT = 1,
	EXIT_USAGE = 2, /* bad usage or bad input: nothing decided */
	EXIT_UNKNOWN = 3,
};

#endif
