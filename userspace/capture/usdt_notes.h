/* SPDX-License-Identifier: MIT */
/* USDT probes an ELF file carries (.note.stapsdt), read with libelf: used to
 * tell a program without vsc probes from one that has them before attaching,
 * and to say which loaded libraries have them. */
#ifndef VSC_CAPTURE_USDT_NOTES_H
#define VSC_CAPTURE_USDT_NOTES_H

/* Number of probes provider:name in the ELF file at path (name NULL: any
 * name of provider). Returns >= 0, or -errno (-ENOEXEC: not ELF). */
int vsc_usdt_count(const char *path, const char *provider, const char *name);

#endif
