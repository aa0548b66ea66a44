// SPDX-License-Identifier: GPL-2.0-or-later
/* stubs.c - weak placeholders for subcommands not built into this binary */
#include "commands.h"

static int missing(const char *name)
{
	err_msg("'%s' is not available in this build", name);
	return 1;
}

__attribute__((weak)) int cmd_record(int argc, char **argv) { return missing("record"); }
__attribute__((weak)) int cmd_report(int argc, char **argv) { return missing("report"); }
__attribute__((weak)) int cmd_convert(int argc, char **argv) { return missing("convert"); }
__attribute__((weak)) int cmd_explode(int argc, char **argv) { return missing("explode"); }
__attribute__((weak)) int cmd_default(int argc, char **argv) { return missing("(default)"); }
