// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * attach.c - put the responder on a device in the mode asked for, with its
 * maps, links and nft tables, or update its ports and options in place
 * (load.c loads the object, detach.c takes it off again).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/if_link.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpffs.h"
#include "cli.h"
#include "compat.h"
#include "json.h"
#include "log.h"
#include "macros.h"
#include "netns.h"
#include "state.h"
#include "tc.h"
#include "sc.h"
#include "syncookie.skel.h"

static int sc_pin_link(const struct sc_target *t, const char *name, int link_fd)
{
	char path[PATH_MAX];
	int err;

	sc_pin(path, sizeof(path), t, name);
	err = bpf_obj_pin(link_fd, path) ? -errno : 0;
	close(link_fd);	/* on error the link goes with the fd */
	return err;
}

/* The responder's meta, pinned in t's dir (where cg_clsact_make notes) */
struct sc_meta_at {
	const struct sc_target *t;
	struct sc_meta *m;
};

static int sc_meta_save(void *arg)
{
	struct sc_meta_at *at = arg;

	return sc_map_put(at->t, SC_PIN_META, at->m, sizeof(*at->m));
}

/*
 * The maps of a first load filled (its addresses, routes, --allow, ports)
 * and pinned, and the ACK program hooked where wanted and loaded: 0, or
 * -errno with why said.
 */
static int sc_hook_maps(const struct sc_target *t, const struct sc_args *a, struct sc_meta *m,
			const struct sc_obj *op, bool want_ack, char *why, size_t why_len)
{
	struct sc_obj o = *op;
	bool raw = sc_raw(m);
	bool ack = want_ack && bpf_program__autoload(o.ack);
	struct sc_conf conf;
	char path[PATH_MAX];
	__u32 key = 0;
	int fd, err, i;

	if (want_ack && o.ack_err)
		cg_info("%s: the ACK program does not load (%s): %s", t->dev,
			strerror(-o.ack_err), raw ? "without the nft tables, no ACK "
			"of its cookies is taken" : "timestamps carry the options only "
			"under tcp_timestamps 2");
	err = sc_conf_read(t, &conf, ack, raw);
	conf.allow = a->nallow > 0;
	if (!err)
		err = bpf_map_update_elem(bpf_map__fd(o.conf), &key, &conf, BPF_ANY) ? -errno : 0;
	if (!err)
		err = sc_routes_sync(bpf_map__fd(o.routes), bpf_map__fd(o.routes4),
				     bpf_map__fd(o.rtab4));
	if (!err)
		err = sc_allow_sync(bpf_map__fd(o.allow), a);
	if (err) {
		snprintf(why, why_len, "cannot read its addresses and routes: %s", strerror(-err));
		return err;
	}
	err = bpf_map_update_elem(bpf_map__fd(o.ports), &key, &a->ports, BPF_ANY) ? -errno : 0;
	for (i = 0; !err && i < SC_NMAPS; i++) {
		sc_pin(path, sizeof(path), t, sc_maps[i].pin);
		err = bpf_map__pin(*sc_obj_map(&o, i), path);
	}
	if (err) {
		snprintf(why, why_len, "cannot pin the maps: %s", strerror(-err));
		return err;
	}
	/* the ACKs' program before the first SYN-ACK that needs it */
	if (ack) {
		fd = bpf_link_create(bpf_program__fd(o.ack), t->ifindex, CG_BPF_TCX_INGRESS, NULL);
		err = fd < 0 ? -errno : sc_pin_link(t, SC_PIN_ACK, fd);
		if (err) {
			snprintf(why, why_len, "cannot hook the ACK program: %s", strerror(-err));
			return err;
		}
		m->flags |= SC_META_ACK;
	}
	return 0;
}

/*
 * The SYN program hooked in mode try (xdp, xdp-generic, or tc: a tcx
 * link, else a clsact filter), m->mode and m->prog_id set: *hooked, with
 * what pinning it gave; else the mode's failure.
 */
static int sc_hook_mode(const struct sc_target *t, struct sc_meta *m, const struct sc_obj *op,
			enum sc_mode try, bool *hooked)
{
	const struct sc_obj o = *op;
	char path[PATH_MAX];
	int fd, err;

	*hooked = true;
	if (try != SC_TC) {
		LIBBPF_OPTS(bpf_link_create_opts, lo,
			    .flags = try == SC_XDP ? XDP_FLAGS_DRV_MODE : XDP_FLAGS_SKB_MODE);

		fd = bpf_link_create(bpf_program__fd(o.xdp), t->ifindex, BPF_XDP, &lo);
		if (fd >= 0) {
			m->mode = try;
			m->prog_id = cg_prog_id(bpf_program__fd(o.xdp));
			return sc_pin_link(t, SC_PIN_LINK, fd);
		}
		err = -errno;
	} else if (cg_have_tcx()) {
		fd = bpf_link_create(bpf_program__fd(o.tc), t->ifindex, CG_BPF_TCX_INGRESS, NULL);
		if (fd >= 0) {
			m->mode = SC_TCX;
			m->prog_id = cg_prog_id(bpf_program__fd(o.tc));
			return sc_pin_link(t, SC_PIN_LINK, fd);
		}
		err = -errno;
	} else {
		LIBBPF_OPTS(bpf_tc_opts, to, .handle = SC_TC_HANDLE, .priority = SC_TC_PRIO,
			    .flags = BPF_TC_F_REPLACE, .prog_fd = bpf_program__fd(o.tc));
		struct sc_meta_at at = { .t = t, .m = m };
		struct cg_clsact_note note = { .flags = &m->flags,
					       .created = SC_META_CREATED_CLSACT,
					       .save = sc_meta_save, .arg = &at };
		struct bpf_tc_hook h;

		m->mode = SC_CLSACT;
		m->prog_id = cg_prog_id(to.prog_fd);
		sc_tc_hook(&h, t->ifindex);
		err = cg_clsact_make(t->ifindex, &note);
		if (!err)
			err = bpf_tc_attach(&h, &to);
		if (!err) {
			sc_pin(path, sizeof(path), t, SC_PIN_PROG);
			return bpf_obj_pin(to.prog_fd, path) ? -errno : 0;
		}
	}
	*hooked = false;
	return err;
}

/*
 * Load and hook the program for mode req (auto: the first mode that
 * works), filling m->mode and m->prog_id; ports and counters are pinned
 * from the first object loaded and reused by a later one.
 */
static int sc_hook(const struct sc_target *t, const struct sc_args *a, struct sc_meta *m,
		   enum sc_mode req, struct sc_obj *op, char *why, size_t why_len)
{
	static const enum sc_mode order[] = { SC_XDP, SC_XDP_GENERIC, SC_TC };
	struct sc_obj o = *op;	/* loaded already, or not; ours to close */
	/* syncookie_ack where it can decode the options (sc_ack_decodes), or
	 * take the raw cookies' ACKs should the tables go */
	bool raw = sc_raw(m);
	bool want_ack = sc_have_reqsk() && (!(m->flags & SC_META_TABLES) || raw);
	bool pinned = false, hooked, refused = false;
	unsigned int i;
	int err = -EINVAL, peer;

	why[0] = '\0';
	m->flags &= ~(SC_META_PEER_XDP | SC_META_PEER_NOXDP | SC_META_REFUSED);
	for (i = 0; i < ARRAY_SIZE(order); i++) {
		enum sc_mode try = order[i];
		bool xdp = try != SC_TC;

		if (req != SC_AUTO && req != try)
			continue;
		/* auto: native on a veth only where its peer runs XDP (and can be read) */
		if (req == SC_AUTO && try == SC_XDP) {
			peer = sc_veth_peer_xdp(t->ifindex);
			m->flags |= peer == 1 ? SC_META_PEER_XDP : peer == 0 ? SC_META_PEER_NOXDP : 0;
			if (peer != 1 && peer != -ENOTTY)
				continue;
		}
		if (!o.obj || xdp != !!bpf_program__autoload(o.xdp) ||
		    (!pinned && want_ack && !bpf_program__autoload(o.ack))) {
			bpf_object__close(o.obj);
			o.obj = NULL;
			err = sc_load(&o, xdp, cg_have_tcx(), !pinned && want_ack, pinned ? t : NULL,
				      why, why_len);
			if (err)
				return err;
		}
		if (!pinned) {
			err = sc_hook_maps(t, a, m, &o, want_ack, why, why_len);
			if (err)
				goto out;
			pinned = true;
		}
		err = sc_hook_mode(t, m, &o, try, &hooked);
		if (hooked) {
			if (refused)
				m->flags = (m->flags & ~SC_META_PEER_XDP) | SC_META_REFUSED;
			goto out;
		}
		refused = refused || try == SC_XDP;
		if (!why[0])
			snprintf(why, why_len, "%s: %s", sc_mode_name(try), strerror(-err));
	}
out:
	bpf_object__close(o.obj);
	return err;
}

/*
 * The program the mode starts with (none for nft), loaded into o; in auto,
 * whether the helper works here, else nft's SYNPROXY in m->mode. An error
 * is said.
 */
static int sc_attach_load(const struct sc_target *t, const struct sc_args *a,
			  struct sc_meta *m, struct sc_obj *o, char *why, size_t why_len)
{
	int err;

	if (a->mode == SC_NFT) {
		if (sc_nft_have())
			return 0;
		cg_err("cannot attach to %s: mode nft needs the nft command", t->dev);
		return -ENOENT;
	}
	err = sc_load(o, a->mode != SC_TC, cg_have_tcx(), false, NULL, why, why_len);
	if (err && a->mode == SC_AUTO && sc_nft_have()) {
		cg_info("%s: using the kernel's SYNPROXY through nftables", why);
		m->mode = SC_NFT;
		return 0;
	}
	if (err)
		cg_err("cannot attach to %s: %s%s", t->dev, why,
		       a->mode == SC_AUTO ? "; and no nft for the fallback" : "");
	return err;
}

/*
 * Make the device's nft tables afresh (sc_nft_apply) and record them in
 * m and its pin. nft mode needs them (need: an error says why, one line);
 * the bpf modes go on without them where nft or the kernel's SYNPROXY is
 * missing, saying so: their SYNs are answered as before, and only the
 * connections under rules that drop an ACK without a SYN fail.
 */
static int sc_nft_tables(const struct sc_target *t, const struct sc_args *a, struct sc_meta *m,
			 bool need)
{
	char why[256] = "";
	int made;

	made = sc_nft_have() ? sc_nft_apply(t, a, m->mode, true, 0, why, sizeof(why)) : -ENOENT;
	if (made < 0 && need) {
		cg_err("cannot attach to %s: %s", t->dev, *why ? why : "no nft command");
		return made;
	}
	if (made < 0)
		cg_info("%s: no conntrack hand-off to SYNPROXY (%s): connections through the "
			"responder fail under rules that drop an ACK without a SYN", t->dev,
			*why ? why : "no nft command");
	else if (!(made & SC_META_HANDOFF6))
		cg_info("%s: no IPv6 SYNPROXY in this kernel (nft_compat, ip6t_SYNPROXY): IPv6 %s",
			t->dev, m->mode == SC_NFT ? "SYNs stay the stack's" :
			"connections fail under rules that drop an ACK without a SYN");
	m->flags &= ~SC_META_TABLES;
	if (made > 0)
		m->flags |= made;
	return sc_map_put(t, SC_PIN_META, m, sizeof(*m));
}

static int sc_attach_fresh(const struct sc_target *t, const struct sc_args *a)
{
	struct sc_meta m = {
		.abi = SC_ABI_VERSION, .ifindex = t->ifindex, .netns_cookie = t->cookie,
		.mode = a->mode, .prev_sysctl = -1,
		.flags = (a->no_handoff ? SC_META_NO_HANDOFF : 0) |
			 (a->mode != SC_AUTO ? SC_META_ASKED : 0),
	};
	char why[256] = "";
	struct sc_obj o = {};
	bool raw;
	int err, cur;

	err = sc_attach_load(t, a, &m, &o, why, sizeof(why));
	if (err)
		return err;
	/*
	 * The sysctl before anything is made (nft's appears with conntrack).
	 * Raw cookies through the tables need none: checked again below if
	 * the tables cannot be made.
	 */
	raw = m.mode != SC_NFT && !a->no_handoff && sc_have_raw() && sc_nft_have();
	cur = sc_sysctl_read(sc_sysctl_path(m.mode));
	if (!raw && cur != sc_sysctl_want(m.mode) && !a->set_sysctl &&
	    (m.mode != SC_NFT || cur >= 0)) {
		cg_err("cannot attach to %s: %s is %d in its namespace; the %s needs %d "
		       "(set it, or pass --set-sysctl)", t->dev, sc_sysctl_name(m.mode), cur,
		       m.mode == SC_NFT ? "SYNPROXY" : "responder", sc_sysctl_want(m.mode));
		err = -EINVAL;
		goto out;
	}
	err = cg_state_mkdirs(SC_PIN_ROOT, t->dir);
	if (err)
		goto out;
	/* meta first: a run killed past here is undone by the next */
	err = sc_map_put(t, SC_PIN_META, &m, sizeof(m));
	if (!err) {
		struct cg_target ct = { .dev = t->dev, .netns = t->netns };

		err = cg_state_names_put(t->dir, &ct);
	}
	if (err)
		goto undo;
	if (m.mode == SC_NFT) {
		err = sc_map_put(t, SC_PIN_PORTS, &a->ports, sizeof(a->ports));
		if (!err)
			err = sc_nft_tables(t, a, &m, true);
		if (err)
			goto undo;
		cur = sc_sysctl_read(SC_SYSCTL_LOOSE);
		if (cur != 0 && !a->set_sysctl) {
			cg_err("cannot attach to %s: %s is %d in its namespace; SYNPROXY needs 0 "
			       "(set it, or pass --set-sysctl)", t->dev, sc_sysctl_name(SC_NFT), cur);
			err = -EINVAL;
			goto undo;
		}
	} else {
		/* the ACKs' way to SYNPROXY before the first SYN-ACK goes out */
		err = a->no_handoff ? 0 : sc_nft_tables(t, a, &m, false);
		if (err)
			goto undo;
		if (raw && (m.flags & SC_META_TABLES) == SC_META_TABLES) {
			m.flags |= SC_META_RAW;
		} else if (raw && cur != sc_sysctl_want(m.mode) && !a->set_sysctl) {
			/* no tables for both families: the listener's cookies after all */
			cg_err("cannot attach to %s: without both nft tables the responder issues "
			       "the listener's cookies, which need %s 2; it is %d (set it, or pass "
			       "--set-sysctl)", t->dev, sc_sysctl_name(m.mode), cur);
			err = -EINVAL;
			goto undo;
		}
		err = sc_hook(t, a, &m, a->mode, &o, why, sizeof(why));
		o.obj = NULL;	/* sc_hook closed it */
		if (err) {
			cg_err("cannot attach to %s: %s", t->dev, why);
			goto undo;
		}
	}
	if (!sc_raw(&m) && cur != sc_sysctl_want(m.mode)) {
		err = sc_sysctl_write(sc_sysctl_path(m.mode), sc_sysctl_want(m.mode));
		if (err) {
			cg_err("cannot attach to %s: cannot set %s: %s", t->dev,
			       sc_sysctl_name(m.mode), strerror(-err));
			goto undo;
		}
		m.flags |= SC_META_SET_SYSCTL;
		m.prev_sysctl = cur;
	}
	err = sc_map_put(t, SC_PIN_META, &m, sizeof(m));
	if (!err)
		goto out;
undo:
	sc_remove(t, &m, true);
out:
	bpf_object__close(o.obj);
	return err;
}

/*
 * A running program's view of its device and namespace, read again: what
 * attach run again does, after an address, route, MAC or MTU changed.
 */
static int sc_refresh(const struct sc_target *t, const struct sc_args *a,
		      const struct sc_meta *m)
{
	char path[PATH_MAX];
	struct sc_conf conf;
	int err, fd;

	/* the sources first: a narrower --allow holds before conf says so */
	sc_pin(path, sizeof(path), t, SC_PIN_ALLOW);
	fd = bpf_obj_get(path);
	err = fd < 0 ? -errno : sc_allow_sync(fd, a);
	if (fd >= 0)
		close(fd);
	if (!err)
		err = sc_conf_read(t, &conf, sc_ack_decodes(m), sc_raw(m));
	conf.allow = a->nallow > 0;
	if (!err)
		err = sc_map_put(t, SC_PIN_CONF, &conf, sizeof(conf));
	if (!err)
		err = sc_routes_sync_pinned(t);
	if (err)
		cg_err("cannot update the addresses and routes of %s: %s", t->dev, strerror(-err));
	return err;
}

/* What its SYN-ACKs carry (bpf modes), for attach's last line */
static const char *sc_attach_opts(const struct sc_target *t, const struct sc_meta *m, char *buf,
				  size_t n)
{
	struct sc_conf c;

	buf[0] = '\0';
	if (m->mode != SC_NFT && !sc_map_get(t, SC_PIN_CONF, &c, 0))
		sc_opts_text(&c, m->flags, buf, n);
	return buf;
}

/*
 * attach where a responder already answers on t (m, its meta, and health,
 * what it still has): its tables again where they went, its ports and
 * options updated in place; 0 done, 1 refused (said)
 */
static int sc_attach_again(const struct sc_target *t, const struct sc_args *a, struct sc_meta *m,
			   enum sc_health health)
{
	struct cg_target ct = { .dev = t->dev, .netns = t->netns };
	char list[256], opts[96];
	struct sc_ports cur;
	bool remade = false;
	int err;

	/* the names detach looks for when the device is gone */
	cg_state_names_refresh(t->dir, &ct);
	if (a->mode != SC_AUTO && !sc_mode_same(a->mode, m->mode)) {
		cg_err("cannot attach to %s: already answering through %s; detach it first "
		       "to change the mode", t->dev, sc_mode_name(m->mode));
		return 1;
	}
	if (a->no_handoff != !!(m->flags & SC_META_NO_HANDOFF)) {
		cg_err("cannot attach to %s: already answering %s the conntrack hand-off; "
		       "detach it first to change that", t->dev,
		       m->flags & SC_META_NO_HANDOFF ? "without (--no-handoff)" : "with");
		return 1;
	}
	if (health == SC_TABLES_GONE ||
	    (m->mode != SC_NFT && !(m->flags & (SC_META_HANDOFF | SC_META_NO_HANDOFF)) &&
	     sc_nft_have())) {
		/* flushed (or never made): its tables again, whole
		 * (raw cookies: where else would their ACKs go?) */
		if (sc_nft_tables(t, a, m, m->mode == SC_NFT || sc_raw(m)))
			return 1;
		if (m->flags & SC_META_HANDOFF)
			cg_info("made the nft tables of %s again", t->dev);
		remade = true;
	} else if (m->flags & SC_META_TABLES) {
		/* the sources and ports again, in place */
		err = sc_nft_apply(t, a, m->mode, false, m->flags & SC_META_TABLES, list,
				   sizeof(list));
		if (err < 0) {
			cg_err("cannot attach to %s: %s", t->dev, list);
			return 1;
		}
	}
	/* after the tables: whether they stand decides the options */
	if (m->mode != SC_NFT && sc_refresh(t, a, m))
		return 1;
	if (!sc_map_get(t, SC_PIN_PORTS, &cur, 0) && !memcmp(&cur, &a->ports, sizeof(cur))) {
		cg_info("already answering SYNs on %s (%s)%s%s", t->dev, sc_mode_name(m->mode),
			m->mode == SC_NFT ? "" : "; ", sc_attach_opts(t, m, opts, sizeof(opts)));
		if (a->same)
			*a->same = !remade;
		return 0;
	}
	/* other ports: in place, counters kept */
	err = sc_map_put(t, SC_PIN_PORTS, &a->ports, sizeof(a->ports));
	if (err) {
		cg_err("cannot update the ports of %s: %s", t->dev, strerror(-err));
		return 1;
	}
	sc_ports_text(&a->ports, list, sizeof(list));
	cg_info("updated the ports of %s (%s): %s", t->dev, sc_mode_name(m->mode), list);
	return 0;
}

int sc_attach(const struct sc_args *a)
{
	struct cg_ack ack = {};
	struct sc_target t;
	enum sc_health health;
	struct sc_meta m;
	char list[256], opts[96];
	int err;

	if (cg_cli_need_root("attach"))
		return 1;
	if (sc_resolve(a, &t, "attach to", SC_LOCK))
		return 1;
	err = cg_bpffs_ready(&ack);
	if (err) {
		cg_err("cannot attach to %s: %s", t.dev, ack.msg);
		return 1;
	}
	/*
	 * The responder answers before the firewall: where one filters what
	 * the namespace receives, the operator says which sources it may
	 * answer (--allow; 0.0.0.0/0,::/0 for every one)
	 */
	if (!a->nallow && sc_nft_input_filtered(list, sizeof(list))) {
		cg_err("cannot attach to %s: %s filters input in its namespace, and the responder "
		       "answers before it; pass --allow with the sources it accepts on these ports "
		       "(0.0.0.0/0,::/0: every source)", t.dev, list);
		return 1;
	}
	err = sc_map_get(&t, SC_PIN_META, &m, 0);
	health = err ? SC_DEAD : sc_health(&t, &m);
	/* nft mode without its table: again, if SYNPROXY's sysctl still holds */
	if (health == SC_TABLES_GONE && m.mode == SC_NFT && sc_sysctl_read(SC_SYSCTL_LOOSE) != 0)
		health = SC_DEAD;
	if (health != SC_DEAD)
		return sc_attach_again(&t, a, &m, health);
	/* stale (device or namespace reused) or half-made: start over */
	sc_remove(&t, err ? NULL : &m, !err && m.netns_cookie == t.cookie);
	if (sc_attach_fresh(&t, a))
		return 1;
	if (sc_map_get(&t, SC_PIN_META, &m, 0) || sc_health(&t, &m) != SC_OK) {
		cg_err("cannot attach to %s: not answering after attach", t.dev);
		return 1;
	}
	sc_ports_text(&a->ports, list, sizeof(list));
	cg_info("answering SYNs on %s (%s), ports %s%s%s", t.dev, sc_mode_name(m.mode), list,
		m.mode == SC_NFT ? "" : "; ", sc_attach_opts(&t, &m, opts, sizeof(opts)));
	return 0;
}
