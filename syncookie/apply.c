// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * apply.c - csum-guard syncookie apply: the responders declared in a file
 * (SC_CONFIG), one a line written as attach's operands and options and
 * parsed through attach's own option table (sc_parse_line), made so:
 *
 *	# device, then attach's options
 *	veth1 --netns web --ports 80,443 --allow 0.0.0.0/0,::/0 --set-sysctl
 *
 * Each declared responder is attached (attach converges: again changes
 * nothing), and marked as apply's own with a pin beside its meta
 * (SC_PIN_APPLY); a marked responder the file no longer lists is
 * detached; one attached by hand and not declared is left alone. Each
 * attach runs in a child process of its own: attach enters the device's
 * namespace and holds the host lock until it exits, and the parent (which
 * may stay, --follow: follow.c) must do neither.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>

#include <bpf/bpf.h>

#include "bpffs.h"
#include "cli.h"
#include "log.h"
#include "netns.h"
#include "notify.h"
#include "state.h"
#include "sc.h"
#include "apply.h"

#define SC_LINE_MAX	4096
#define SC_ARGS_MAX	64

static void sc_decls_free(struct sc_decls *ds)
{
	int i;

	for (i = 0; i < ds->n; i++)
		free(ds->d[i].text);
	free(ds->d);
	memset(ds, 0, sizeof(*ds));
}

/* One line (cut at '#') into ds; 0, or 2 with "FILE:LINE: why" said */
static int sc_decl_parse(struct sc_decls *ds, const char *file, int lineno, const char *line)
{
	char where[PATH_MAX + 16], *argv[SC_ARGS_MAX + 1], *text, *tok, *save;
	struct sc_decl *d;
	int argc = 1, i, ret;

	snprintf(where, sizeof(where), "%s:%d", file, lineno);
	text = strndup(line, strcspn(line, "#"));
	if (!text)
		return cg_usage_err("%s: out of memory", where);
	argv[0] = where;
	for (tok = strtok_r(text, " \t\r\n", &save); tok; tok = strtok_r(NULL, " \t\r\n", &save)) {
		if (argc == SC_ARGS_MAX) {
			free(text);
			return cg_usage_err("%s: more than %d words", where, SC_ARGS_MAX - 1);
		}
		argv[argc++] = tok;
	}
	argv[argc] = NULL;
	if (argc == 1) {
		free(text);
		return 0;
	}
	d = realloc(ds->d, (ds->n + 1) * sizeof(*d));
	if (!d) {
		free(text);
		return cg_usage_err("%s: out of memory", where);
	}
	ds->d = d;
	d = &ds->d[ds->n];
	memset(d, 0, sizeof(*d));
	d->line = lineno;
	d->text = text;		/* a.dev and a.netns point into it */
	ret = sc_parse_line(argc, argv, &d->a);
	if (ret) {
		free(text);
		return ret;
	}
	for (i = 0; i < ds->n; i++)
		if (!strcmp(ds->d[i].a.dev, d->a.dev) &&
		    !strcmp(ds->d[i].a.netns ?: "", d->a.netns ?: "")) {
			cg_usage_where = where;
			ret = cg_usage_err("%s%s%s is declared already on line %d", d->a.dev,
					   d->a.netns ? " in netns " : "", d->a.netns ?: "",
					   ds->d[i].line);
			cg_usage_where = NULL;
			free(text);
			return ret;
		}
	ds->n++;
	return 0;
}

int sc_decls_read(struct sc_decls *ds, const char *file)
{
	char line[SC_LINE_MAX + 2];
	int lineno = 0, ret = 0;
	FILE *f;

	memset(ds, 0, sizeof(*ds));
	ds->file = file;
	f = fopen(file, "re");
	if (!f) {
		cg_err("cannot read %s: %s", file, strerror(errno));
		return 1;
	}
	while (!ret && fgets(line, sizeof(line), f)) {
		lineno++;
		if (strlen(line) > SC_LINE_MAX) {
			cg_usage_where = NULL;
			ret = cg_usage_err("%s:%d: longer than %d characters", file, lineno, SC_LINE_MAX);
			break;
		}
		ret = sc_decl_parse(ds, file, lineno, line);
	}
	if (!ret && ferror(f)) {
		cg_err("cannot read %s: %s", file, strerror(errno));
		ret = 1;
	}
	fclose(f);
	if (ret)
		sc_decls_free(ds);
	return ret;
}

/* "DEV" or "DEV in netns NS", for messages */
const char *sc_decl_where(const struct sc_decl *d, char *buf, size_t n)
{
	snprintf(buf, n, "%s%s%s", d->a.dev, d->a.netns ? " in netns " : "", d->a.netns ?: "");
	return buf;
}

/*
 * What the program reads of its namespace (its conf, routes and allowed
 * sources), summed over the pinned maps' entries: equal sums, nothing the
 * namespace changed reached it. 0 where nothing is pinned.
 */
static __u64 sc_view_sum(const struct sc_target *t)
{
	static const char *const maps[] = { SC_PIN_CONF, SC_PIN_ROUTES, SC_PIN_ALLOW, SC_PIN_PORTS };
	unsigned char key[64], next[64], val[256];
	struct bpf_map_info info;
	char path[PATH_MAX];
	__u64 sum = 0, h;
	unsigned int i, j;
	__u32 len;
	int fd;

	for (i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
		sc_pin(path, sizeof(path), t, maps[i]);
		fd = bpf_obj_get(path);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (bpf_obj_get_info_by_fd(fd, &info, &len) || info.key_size > sizeof(key) ||
		    info.value_size > sizeof(val)) {
			close(fd);
			continue;
		}
		for (void *k = NULL; !bpf_map_get_next_key(fd, k, next); k = key) {
			memcpy(key, next, info.key_size);
			if (bpf_map_lookup_elem(fd, key, val))
				continue;
			/* FNV-1a over map, key and value; summed: order does not matter */
			h = 14695981039346656037ULL ^ i;
			for (j = 0; j < info.key_size; j++)
				h = (h ^ key[j]) * 1099511628211ULL;
			for (j = 0; j < info.value_size; j++)
				h = (h ^ val[j]) * 1099511628211ULL;
			sum += h;
		}
		close(fd);
	}
	return sum;
}

/*
 * Does the current namespace have the nft table name of family (nfproto)?
 * Asked of the kernel directly (NFT_MSG_GETTABLE): what the follower
 * checks after each nftables change, cheaper than an nft command. 1, 0,
 * or -errno.
 */
static int sc_table_there(const char *name, __u8 family)
{
	struct {
		struct nlmsghdr h;
		struct nfgenmsg g;
		struct nlattr a;
		char name[64];
	} req = {};
	char buf[4096] __attribute__((aligned(4)));
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	size_t len = strlen(name) + 1;
	int fd, ret = -EIO;
	ssize_t n;

	if (len > sizeof(req.name))
		return -ENAMETOOLONG;
	req.h.nlmsg_len = NLMSG_LENGTH(sizeof(req.g)) + NLA_ALIGN(NLA_HDRLEN + len);
	req.h.nlmsg_type = (NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_GETTABLE;
	req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	req.g.nfgen_family = family;
	req.g.version = NFNETLINK_V0;
	req.a.nla_len = NLA_HDRLEN + len;
	req.a.nla_type = NFTA_TABLE_NAME;
	memcpy(req.name, name, len);
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_NETFILTER);
	if (fd < 0)
		return -errno;
	if (send(fd, &req, req.h.nlmsg_len, 0) < 0) {
		ret = -errno;
		goto out;
	}
	n = recv(fd, buf, sizeof(buf), 0);
	if (n < (ssize_t)sizeof(*h))
		goto out;
	if (h->nlmsg_type == NLMSG_ERROR) {
		struct nlmsgerr *e = NLMSG_DATA(h);

		ret = e->error == -ENOENT ? 0 : e->error ? e->error : -EIO;
	} else if ((h->nlmsg_type & 0xff) == NFT_MSG_NEWTABLE) {
		ret = 1;
	}
out:
	close(fd);
	return ret;
}

/* Are the tables m says attach made there? (whole: attach checks that) */
static bool sc_tables_there(const struct sc_target *t, const struct sc_meta *m)
{
	char name[64];

	snprintf(name, sizeof(name), SC_NFT_TABLE_FMT, t->ifindex);
	if ((m->mode == SC_NFT || (m->flags & SC_META_HANDOFF)) &&
	    sc_table_there(name, NFPROTO_INET) != 1)
		return false;
	return !(m->flags & SC_META_HANDOFF6) || sc_table_there(name, NFPROTO_IPV6) == 1;
}

/* ms since the follower heard the first event of this repair */
static long long sc_waited(const struct sc_decl *d)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000 - d->heard;
}

/* Mark t as apply's own, with its count of repairs */
static void sc_mark(const struct sc_target *t, __u64 repairs)
{
	struct sc_applied rec = { .repairs = repairs, .flags = SC_APPLIED };
	char path[PATH_MAX];

	sc_pin(path, sizeof(path), t, SC_PIN_APPLY);
	if (cg_pin_array_put(path, "sc_applied", &rec, sizeof(rec)))
		cg_info("%s: cannot mark it as declared (%s)", t->dev, path);
}

/*
 * In a child, after an address or route change in t's namespace (entered):
 * the program's conf and routes read again, as attach does; a repair if
 * they differ. The hook and tables are left to attach (other causes).
 */
static int sc_apply_refresh(struct sc_decl *d, const struct sc_target *t,
			    const struct sc_meta *m, unsigned int causes)
{
	struct sc_applied rec = {};
	struct sc_conf conf, old;
	struct cg_ack ack = {};
	char where[PATH_MAX + 32];
	__u64 sum0, repairs;
	int err;

	/* (the hook and tables are attach's to check: nft commands are slow) */
	if (m->mode == SC_NFT)
		return SC_APPLY_SAME;
	err = cg_lock_host(&ack);
	if (err) {
		cg_err("cannot refresh %s: %s", sc_decl_where(d, where, sizeof(where)),
		       cg_ack_why(&ack, err));
		return SC_APPLY_FAILED;
	}
	sum0 = sc_view_sum(t);
	err = sc_map_get(t, SC_PIN_CONF, &old, 0);
	if (!err)
		err = sc_conf_read(t, &conf, sc_ack_decodes(m), sc_raw(m));
	if (!err) {
		conf.allow = old.allow;
		err = sc_map_put(t, SC_PIN_CONF, &conf, sizeof(conf));
	}
	if (!err)
		err = sc_routes_sync_pinned(t);
	if (err) {
		cg_err("cannot update the addresses and routes of %s: %s",
		       sc_decl_where(d, where, sizeof(where)), strerror(-err));
		return SC_APPLY_FAILED;
	}
	sc_map_get(t, SC_PIN_APPLY, &rec, 0);
	repairs = rec.repairs > d->repairs ? rec.repairs : d->repairs;
	if (sum0 == sc_view_sum(t)) {
		sc_mark(t, repairs);
		return SC_APPLY_SAME;
	}
	sc_mark(t, ++repairs);
	cg_info("repaired the SYN responder of %s after %s: its addresses and routes read again "
		"(repair %llu, %lld ms after the change)", sc_decl_where(d, where, sizeof(where)),
		sc_cause_text(causes), (unsigned long long)repairs, sc_waited(d));
	return SC_APPLY_REPAIRED;
}

const char *sc_cause_text(unsigned int causes)
{
	return causes & SC_CAUSE_NS ? "its namespace came (or events were lost)" :
	       causes & SC_CAUSE_DEV ? "a device change" :
	       causes & SC_CAUSE_NFT ? "an nftables change" :
	       causes & SC_CAUSE_ADDR ? "an address change" : "a route change";
}

/*
 * In a child: attach d as declared and mark it. causes (--follow): what the
 * follower heard change in its namespace; a repair is counted and logged
 * where something was undone (its health, or what its program reads,
 * differs after). An nftables change only where its tables are gone, an
 * address or route only the program's view of the namespace
 * (sc_apply_refresh): the rest attaches again. Returns the child's exit
 * status (SC_APPLY_*).
 */
static int sc_apply_child(struct sc_decl *d, unsigned int causes)
{
	struct sc_args a = d->a;
	struct sc_applied rec = {};
	enum sc_health h0 = SC_DEAD;
	struct sc_target t;
	struct sc_meta m;
	bool same = false, quiet = cg_quiet;
	char where[PATH_MAX + 32];
	__u64 sum0, repairs;
	long long took;
	int err;

	err = sc_resolve(&a, &t, "attach to", SC_GONE_OK);
	if (err == -ENODEV || err == -ENOENT)
		return SC_APPLY_MISSING;
	if (err)
		return SC_APPLY_FAILED;
	if (sc_map_get(&t, SC_PIN_META, &m, 0)) {
		h0 = SC_DEAD;
	} else if (causes && !(causes & (SC_CAUSE_DEV | SC_CAUSE_NS))) {
		/* tables there (an nft change of ours, or of others' tables):
		 * at most the namespace's view; else attach makes them again */
		if (!(causes & SC_CAUSE_NFT) || sc_tables_there(&t, &m))
			return causes & (SC_CAUSE_ADDR | SC_CAUSE_ROUTE) ?
			       sc_apply_refresh(d, &t, &m, causes) : SC_APPLY_SAME;
		h0 = SC_TABLES_GONE;
	} else {
		h0 = sc_health(&t, &m);
	}
	sum0 = sc_view_sum(&t);
	sc_map_get(&t, SC_PIN_APPLY, &rec, 0);
	a.same = &same;
	if (causes)
		cg_quiet = true;	/* one line of ours per repair instead */
	took = sc_waited(d);
	err = sc_attach(&a);
	took = sc_waited(d) - took;
	cg_quiet = quiet;
	if (err)
		return SC_APPLY_FAILED;
	/* attach resolved it again: the same device, unless it came back meanwhile */
	if (sc_resolve(&a, &t, "attach to", SC_GONE_OK))
		return SC_APPLY_MISSING;
	repairs = rec.repairs > d->repairs ? rec.repairs : d->repairs;
	if (causes && (h0 != SC_OK || !same || sum0 != sc_view_sum(&t))) {
		sc_mark(&t, ++repairs);
		cg_info("repaired the SYN responder of %s after %s: %s (repair %llu, %lld ms after "
			"the change, %lld of them attach's)", sc_decl_where(d, where, sizeof(where)),
			sc_cause_text(causes),
			h0 == SC_TABLES_GONE ? "its nft tables made again" :
			h0 == SC_DEAD ? "attached again" : "its addresses and routes read again",
			(unsigned long long)repairs, sc_waited(d), took);
		return SC_APPLY_REPAIRED;
	}
	sc_mark(&t, repairs);
	return same ? SC_APPLY_SAME : SC_APPLY_CHANGED;
}

int sc_apply_run(struct sc_decl *d, unsigned int causes)
{
	int status;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		cg_err("cannot apply %s: fork: %s", d->a.dev, strerror(errno));
		return SC_APPLY_FAILED;
	}
	if (!pid)
		_exit(sc_apply_child(d, causes));
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return SC_APPLY_FAILED;
	return WIFEXITED(status) ? WEXITSTATUS(status) : SC_APPLY_FAILED;
}

/* The walk over the state for what apply made and the file no longer lists */
struct sc_unapply {
	const struct sc_decls *ds;
	const char *label;	/* the namespace walked, NULL: ours */
	__u64 cookie;
	int n;
};

static bool sc_declared(const struct sc_decls *ds, const char *dev, const char *netns)
{
	int i;

	for (i = 0; i < ds->n; i++)
		if (!strcmp(ds->d[i].a.dev, dev) && !strcmp(ds->d[i].a.netns ?: "", netns))
			return true;
	return false;
}

static int sc_unapply_dev(const char *dir, __u64 ino, int ifindex, void *arg)
{
	struct sc_unapply *u = arg;
	struct sc_target t = { .ino = ino, .cookie = u->cookie, .ifindex = ifindex };
	struct cg_state_names nm = {};
	struct sc_applied rec;
	struct sc_meta m;
	char path[PATH_MAX], dev[4 * IF_NAMESIZE + 1];

	snprintf(t.dir, sizeof(t.dir), "%s", dir);
	sc_pin(path, sizeof(path), &t, SC_PIN_APPLY);
	if (cg_pin_array_get(path, 0, &rec) || !(rec.flags & SC_APPLIED))
		return 0;
	cg_state_names_get(dir, &nm);
	nm.dev[sizeof(nm.dev) - 1] = nm.netns[sizeof(nm.netns) - 1] = '\0';
	if (sc_declared(u->ds, nm.dev, nm.netns))
		return 0;
	if (!sc_map_get(&t, SC_PIN_META, &m, 0))
		sc_remove(&t, &m, m.netns_cookie == t.cookie);
	else
		sc_remove(&t, NULL, false);
	u->n++;
	cg_info("detached the SYN responder from %s%s%s: no longer declared",
		cg_text_safe(nm.dev, dev, sizeof(dev)), *nm.netns ? " in netns " : "", nm.netns);
	return 0;
}

static int sc_unapply_ns(const char *label, __u64 ino, void *arg)
{
	struct sc_unapply *u = arg;

	u->label = label;
	if (cg_netns_cookie(&u->cookie))
		u->cookie = 0;
	cg_state_each_dev(SC_PIN_ROOT, ino, sc_unapply_dev, u);
	return 0;
}

/* In a child: detach what apply made that ds does not declare; how many, or -1 */
static int sc_unapply_child(const struct sc_decls *ds)
{
	struct sc_unapply u = { .ds = ds };
	struct cg_ack ack = {};
	__u64 ino;
	int err;

	err = cg_lock_host(&ack);
	if (!err)
		err = cg_netns_ino(&ino);
	if (!err)
		err = sc_unapply_ns(NULL, ino, &u);
	if (!err)
		err = cg_state_each_netns(SC_PIN_ROOT, sc_unapply_ns, &u, &ack);
	if (err) {
		cg_err("cannot detach what is no longer declared: %s", cg_ack_why(&ack, err));
		return 255;
	}
	return u.n > 250 ? 250 : u.n;
}

static int sc_unapply(const struct sc_decls *ds)
{
	int status;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid)
		_exit(sc_unapply_child(ds));
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) != 255 ? WEXITSTATUS(status) : -1;
}

/* Every declared responder once, then the undeclared ones off; 0 or 1 */
static int sc_converge(struct sc_decls *ds, int *failed)
{
	int i, same = 0, changed = 0, missing = 0, gone;
	char where[PATH_MAX + 32];

	*failed = 0;
	for (i = 0; i < ds->n; i++) {
		switch (sc_apply_run(&ds->d[i], 0)) {
		case SC_APPLY_SAME:
			same++;
			break;
		case SC_APPLY_CHANGED:
			changed++;
			break;
		case SC_APPLY_MISSING:
			missing++;
			ds->d[i].missing = true;
			cg_err("cannot attach to %s: it does not exist (%s:%d)",
			       sc_decl_where(&ds->d[i], where, sizeof(where)), ds->file, ds->d[i].line);
			break;
		default:
			(*failed)++;
			break;
		}
	}
	gone = sc_unapply(ds);
	if (gone < 0)
		(*failed)++;
	if (!changed && gone <= 0 && !*failed && !missing)
		cg_info("nothing to change: the %d responder%s of %s answer%s as declared", ds->n,
			ds->n == 1 ? "" : "s", ds->file, ds->n == 1 ? "s" : "");
	else
		cg_info("applied %s: %d attached or updated, %d as declared already, %d detached, "
			"%d failed", ds->file, changed, same, gone > 0 ? gone : 0, *failed + missing);
	*failed += missing;
	return *failed ? 1 : 0;
}

int sc_apply(const struct sc_args *a)
{
	struct sc_decls ds;
	int ret, failed;

	ret = sc_decls_read(&ds, a->config ?: SC_CONFIG);
	if (ret)
		return ret;
	if (cg_cli_need_root("apply")) {
		sc_decls_free(&ds);
		return 1;
	}
	ret = sc_converge(&ds, &failed);
	if (a->follow) {
		/* the unit counts as started, and what is ordered after it starts */
		cg_notify(ret ? "READY=1\nSTATUS=some declared responders failed: following" :
			  "READY=1\nSTATUS=every declared responder answers: following");
		ret = sc_follow(&ds);
	}
	sc_decls_free(&ds);
	return ret;
}
