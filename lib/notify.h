/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * notify.h - tell the service manager that started us how far we are, the
 * sd_notify(3) datagram protocol without libsystemd: a unit of Type=notify
 * counts as started, and units ordered after it start, only once we say
 * READY=1.
 */
#ifndef CG_NOTIFY_H
#define CG_NOTIFY_H

/*
 * Send state ("READY=1\nSTATUS=...") to $NOTIFY_SOCKET. Returns 1 when
 * sent, 0 when no manager asked (no NOTIFY_SOCKET), -errno when the send
 * failed.
 */
int cg_notify(const char *state);

#endif /* CG_NOTIFY_H */
