// SPDX-License-Identifier: GPL-2.0-only
/*
 * device.c - attach and detach the per-device ingress (and egress) hooks,
 * follow the life of guarded devices.
 *
 * Locking: cg_devices and every entry's non-packet-path fields are
 * protected by cg_devices_lock. Anything that adds or removes a hook also
 * holds RTNL first, so that a device found by ifindex cannot pass
 * NETDEV_UNREGISTER (which runs under RTNL) before its entry is listed.
 * Readers (GET, dump) take only cg_devices_lock, and so does the work that
 * moves a hook back in front (it re-registers hooks of listed devices
 * only). Lock order: RTNL, then cg_devices_lock. The packet path sees an entry only through the priv
 * pointer of its hook, under RCU, hence call_rcu() for freeing.
 */
#include "device.h"
#include "hook.h"
#include "netns.h"

#include <linux/limits.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include <csum_guard_genl.h>

/*
 * Run before every other netdev ingress (egress) hook, nftables netdev
 * chains included: one of those could dup or fwd the skb to a transmit path
 * that completes its checksum before we get to drop it, or judge a header
 * that the completion rewrites afterwards. A hook registered later at this
 * same priority runs first until cg_device_first_work puts us back.
 */
#define CG_HOOK_PRIORITY INT_MIN

/*
 * How many devices may be guarded in a namespace of a user namespace other
 * than the host's, one any user can make (netns.c), at the asking of a
 * caller without CAP_NET_ADMIN in the initial user namespace: beyond it
 * ATTACH fails with EDQUOT. Root guarding devices there is not bounded.
 */
static unsigned int userns_devices_max = 64;
module_param(userns_devices_max, uint, 0644);
MODULE_PARM_DESC(userns_devices_max,
		 "Devices an unprivileged user may guard in a namespace of theirs (64)");

static LIST_HEAD(cg_devices);
static DEFINE_MUTEX(cg_devices_lock);
/* Changes with every entry listed or unlisted: tells a dump that spans
 * several rounds that the list changed between them. Never 0. */
static unsigned int cg_devices_gen = 1;

static void cg_devices_changed(void)
{
	lockdep_assert_held(&cg_devices_lock);
	if (!++cg_devices_gen)
		cg_devices_gen = 1;
}

static struct cg_device *cg_device_find_dev(const struct net_device *dev)
{
	struct cg_device *cd;

	lockdep_assert_held(&cg_devices_lock);
	list_for_each_entry(cd, &cg_devices, list)
		if (cd->dev == dev)
			return cd;
	return NULL;
}

/*
 * While an entry is listed its device has not passed NETDEV_UNREGISTER,
 * so dev_net() of it cannot change under cg_devices_lock.
 */
static struct cg_device *cg_device_find(struct net *net, int ifindex)
{
	struct cg_device *cd;

	lockdep_assert_held(&cg_devices_lock);
	list_for_each_entry(cd, &cg_devices, list)
		if (cd->ifindex == ifindex && net_eq(dev_net(cd->dev), net))
			return cd;
	return NULL;
}

void cg_counters_sum(const struct cg_counters __percpu *pc, u64 sum[CG_CNT_MAX])
{
	int cpu, i;

	for_each_possible_cpu(cpu) {
		const struct cg_counters *c = per_cpu_ptr(pc, cpu);

		for (i = 0; i < CG_CNT_MAX; i++)
			sum[i] += READ_ONCE(c->cnt[i]);
	}
}

/* Is cd's hook the first of its device's hooks at hooknum? */
static bool cg_hook_first(const struct cg_device *cd, unsigned int hooknum)
{
	const struct nf_hook_entries *e = NULL;
	bool first;

	rcu_read_lock();
	if (hooknum == NF_NETDEV_INGRESS)
		e = rcu_dereference(cd->dev->nf_hooks_ingress);
#ifdef CG_HAVE_NF_EGRESS
	else
		e = rcu_dereference(cd->dev->nf_hooks_egress);
#endif
	first = !e || !e->num_hook_entries || e->hooks[0].priv == cd;
	rcu_read_unlock();
	return first;
}

/* CG_FIRST_* for each hook cd has that runs first */
static u32 cg_device_first(const struct cg_device *cd)
{
	u32 first = 0;

	if (cg_hook_first(cd, NF_NETDEV_INGRESS))
		first |= CG_FIRST_INGRESS;
#ifdef CG_HAVE_NF_EGRESS
	if ((cd->flags & CG_F_EGRESS) && cg_hook_first(cd, NF_NETDEV_EGRESS))
		first |= CG_FIRST_EGRESS;
#endif
	return first;
}

static void cg_device_info_fill(const struct cg_device *cd,
				struct cg_device_info *info)
{
	memset(info, 0, sizeof(*info));
	info->ifindex = cd->ifindex;
	info->flags = cd->flags;
	strscpy(info->ifname, cd->ifname, sizeof(info->ifname));
	cg_counters_sum(cd->counters, info->cnt);
	info->first = cg_device_first(cd);
	info->reordered = cd->reordered;
}

static void cg_device_ops_init(struct cg_device *cd, struct nf_hook_ops *ops,
			       unsigned int hooknum)
{
	ops->hook = cg_hook;
	ops->pf = NFPROTO_NETDEV;
	ops->hooknum = hooknum;
	ops->priority = CG_HOOK_PRIORITY;
	ops->dev = cd->dev;
	ops->priv = cd;
}

/*
 * Bring the egress hook in line with flags: register it when CG_F_EGRESS
 * is newly asked for, unregister it when it no longer is. On failure
 * nothing changed. An unregistered hook may still run on another CPU until
 * the next grace period; it only touches cd, which outlives that.
 */
static int cg_device_set_egress(struct cg_device *cd, u32 flags)
{
	bool want = flags & CG_F_EGRESS, have = cd->flags & CG_F_EGRESS;

	ASSERT_RTNL();
	lockdep_assert_held(&cg_devices_lock);

	if (want == have)
		return 0;
#ifdef CG_HAVE_NF_EGRESS
	if (want) {
		cg_device_ops_init(cd, &cd->egress_ops[cd->egress_cur], NF_NETDEV_EGRESS);
		return nf_register_net_hook(dev_net(cd->dev), &cd->egress_ops[cd->egress_cur]);
	}
	nf_unregister_net_hook(dev_net(cd->dev), &cd->egress_ops[cd->egress_cur]);
	return 0;
#else
	return -EOPNOTSUPP;
#endif
}

static void cg_device_free_rcu(struct rcu_head *rcu)
{
	struct cg_device *cd = container_of(rcu, struct cg_device, rcu);

	free_percpu(cd->counters);
	kfree(cd);
}

static struct cg_device *cg_device_create(struct net_device *dev, u32 flags)
{
	struct cg_device *cd;
	int ret;

	ASSERT_RTNL();
	lockdep_assert_held(&cg_devices_lock);

	/* charged to the memory cgroup of the caller, who may be any user */
	cd = kzalloc(sizeof(*cd), GFP_KERNEL_ACCOUNT);
	if (!cd)
		return ERR_PTR(-ENOMEM);
	cd->counters = alloc_percpu_gfp(struct cg_counters, GFP_KERNEL_ACCOUNT);
	if (!cd->counters) {
		ret = -ENOMEM;
		goto err_counters;
	}
	cd->dev = dev;
	cd->flags = flags & ~CG_F_EGRESS;	/* until its hook is there */
	cd->ifindex = dev->ifindex;
	strscpy(cd->ifname, dev->name, sizeof(cd->ifname));
	cg_device_ops_init(cd, &cd->ops[0], NF_NETDEV_INGRESS);

	cg_netdev_hold(dev, &cd->dev_tracker);
	ret = nf_register_net_hook(dev_net(dev), &cd->ops[0]);
	if (ret)
		goto err_hook;
	ret = cg_device_set_egress(cd, flags);
	if (ret)
		goto err_egress;
	cd->flags = flags;

	list_add_tail(&cd->list, &cg_devices);
	cg_devices_changed();
	return cd;

err_egress:
	/* the ingress hook may be running: free only after a grace period */
	nf_unregister_net_hook(dev_net(dev), &cd->ops[0]);
	cg_netdev_put(dev, &cd->dev_tracker);
	call_rcu(&cd->rcu, cg_device_free_rcu);
	return ERR_PTR(ret);
err_hook:
	cg_netdev_put(dev, &cd->dev_tracker);
	free_percpu(cd->counters);
err_counters:
	kfree(cd);
	return ERR_PTR(ret);
}

/*
 * Unhook and unlist. The hook may still be running on another CPU until
 * the next grace period; module exit waits for the frees with rcu_barrier().
 */
static void cg_device_destroy(struct cg_device *cd)
{
	ASSERT_RTNL();
	lockdep_assert_held(&cg_devices_lock);

	list_del(&cd->list);
	cg_devices_changed();
	cg_device_set_egress(cd, 0);
	nf_unregister_net_hook(dev_net(cd->dev), &cd->ops[cd->cur]);
	cg_netdev_put(cd->dev, &cd->dev_tracker);
	call_rcu(&cd->rcu, cg_device_free_rcu);
}

/*
 * Back in front: at equal priority the hook registered last runs first, so
 * an nftables netdev chain at INT_MIN added after the guard (a ruleset
 * reloaded with nft -f) runs before it, and could fwd or dup a frame the
 * guard would have dropped. Register the other ops of the pair, which then
 * runs first, and only then unregister the one that ran behind: no moment
 * without the guard. Looked at every second while a device is guarded.
 */
static void cg_device_refront(struct cg_device *cd, struct nf_hook_ops ops[2], u8 *cur,
			      unsigned int hooknum)
{
	struct nf_hook_ops *now = &ops[*cur], *next = &ops[!*cur];

	cg_device_ops_init(cd, next, hooknum);
	if (nf_register_net_hook(dev_net(cd->dev), next))
		return;		/* stays where it is; tried again next time */
	nf_unregister_net_hook(dev_net(cd->dev), now);
	*cur = !*cur;
	cd->reordered++;
}

static void cg_device_first_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(cg_device_first_work, cg_device_first_work_fn);

static void cg_device_first_work_fn(struct work_struct *work)
{
	struct cg_device *cd;
	bool any;

	/* no RTNL: a listed device cannot pass NETDEV_UNREGISTER, whose
	 * notifier takes cg_devices_lock; the hooks have their own mutex */
	mutex_lock(&cg_devices_lock);
	list_for_each_entry(cd, &cg_devices, list) {
		if (!cg_hook_first(cd, NF_NETDEV_INGRESS))
			cg_device_refront(cd, cd->ops, &cd->cur, NF_NETDEV_INGRESS);
#ifdef CG_HAVE_NF_EGRESS
		if ((cd->flags & CG_F_EGRESS) && !cg_hook_first(cd, NF_NETDEV_EGRESS))
			cg_device_refront(cd, cd->egress_ops, &cd->egress_cur, NF_NETDEV_EGRESS);
#endif
	}
	any = !list_empty(&cg_devices);
	mutex_unlock(&cg_devices_lock);
	if (any)
		schedule_delayed_work(&cg_device_first_work, HZ);
}

static unsigned int cg_device_count(const struct net *net)
{
	struct cg_device *cd;
	unsigned int n = 0;

	lockdep_assert_held(&cg_devices_lock);
	list_for_each_entry(cd, &cg_devices, list)
		if (net_eq(dev_net(cd->dev), net))
			n++;
	return n;
}

/*
 * Guard a device, or update the flags of a guarded one. The caller has
 * checked flags against CG_F_SUPPORTED; bounded: the caller has no
 * CAP_NET_ADMIN in the initial user namespace.
 */
int cg_device_attach(struct net *net, int ifindex, u32 flags, bool bounded,
		     struct cg_device_info *info,
		     struct netlink_ext_ack *extack)
{
	struct net_device *dev;
	struct cg_device *cd;
	int ret = 0;

	rtnl_lock();
	mutex_lock(&cg_devices_lock);
	dev = __dev_get_by_index(net, ifindex);
	if (!dev) {
		NL_SET_ERR_MSG(extack, "No such device in this network namespace");
		ret = -ENODEV;
		goto out;
	}
	cd = cg_device_find_dev(dev);
	if (cd) {
		ret = cg_device_set_egress(cd, flags);
		if (ret) {
			NL_SET_ERR_MSG(extack, "Cannot register the egress hook");
			goto out;
		}
		WRITE_ONCE(cd->flags, flags);
	} else {
		if (bounded && cg_net_unprivileged(net) &&
		    cg_device_count(net) >= READ_ONCE(userns_devices_max)) {
			NL_SET_ERR_MSG(extack, "Too many guarded devices in this unprivileged namespace (userns_devices_max)");
			ret = -EDQUOT;
			goto out;
		}
		cd = cg_device_create(dev, flags);
		if (IS_ERR(cd)) {
			NL_SET_ERR_MSG(extack, "Cannot register the netfilter hooks");
			ret = PTR_ERR(cd);
			goto out;
		}
	}
	cg_device_info_fill(cd, info);
	schedule_delayed_work(&cg_device_first_work, HZ);
out:
	mutex_unlock(&cg_devices_lock);
	rtnl_unlock();
	return ret;
}

int cg_device_detach(struct net *net, int ifindex)
{
	struct cg_device *cd;
	int ret = 0;

	rtnl_lock();
	mutex_lock(&cg_devices_lock);
	cd = cg_device_find(net, ifindex);
	if (cd)
		cg_device_destroy(cd);
	else
		ret = -ENOENT;
	mutex_unlock(&cg_devices_lock);
	rtnl_unlock();
	return ret;
}

int cg_device_get(struct net *net, int ifindex, struct cg_device_info *info)
{
	struct cg_device *cd;
	int ret = 0;

	mutex_lock(&cg_devices_lock);
	cd = cg_device_find(net, ifindex);
	if (cd)
		cg_device_info_fill(cd, info);
	else
		ret = -ENOENT;
	mutex_unlock(&cg_devices_lock);
	return ret;
}

/*
 * Call fn for every guarded device of net from position *pos on, counting
 * only that namespace's devices; stop at the first non-zero return and
 * leave *pos at the device that was not taken, for the next dump round.
 * *gen gets the list's generation before fn is first called: a round that
 * sees another one than the round before knows that positions moved.
 */
int cg_device_dump(struct net *net, unsigned long *pos, unsigned int *gen,
		   cg_device_dump_fn fn, void *arg)
{
	struct cg_device_info info;
	struct cg_device *cd;
	unsigned long i = 0;
	int ret = 0;

	mutex_lock(&cg_devices_lock);
	*gen = cg_devices_gen;
	list_for_each_entry(cd, &cg_devices, list) {
		if (!net_eq(dev_net(cd->dev), net))
			continue;
		if (i++ < *pos)
			continue;
		cg_device_info_fill(cd, &info);
		ret = fn(&info, arg);
		if (ret)
			break;
		(*pos)++;
	}
	mutex_unlock(&cg_devices_lock);
	return ret;
}

/*
 * A netdev hook is not removed with its device: unless we unregister it
 * here, unregistering the device waits forever for our reference. This
 * also runs for every device of a namespace that goes away, and when a
 * device moves to another namespace (the guard does not follow it).
 */
static int cg_device_netdev_event(struct notifier_block *nb,
				  unsigned long action, void *data)
{
	struct net_device *dev = netdev_notifier_info_to_dev(data);
	struct cg_device *cd;

	if (action != NETDEV_UNREGISTER && action != NETDEV_CHANGENAME)
		return NOTIFY_DONE;

	mutex_lock(&cg_devices_lock);
	cd = cg_device_find_dev(dev);
	if (cd && action == NETDEV_UNREGISTER)
		cg_device_destroy(cd);
	else if (cd)
		strscpy(cd->ifname, dev->name, sizeof(cd->ifname));
	mutex_unlock(&cg_devices_lock);
	return NOTIFY_DONE;
}

static struct notifier_block cg_device_notifier = {
	.notifier_call = cg_device_netdev_event,
};

int cg_device_init(void)
{
	return register_netdevice_notifier(&cg_device_notifier);
}

/* Unhook every device in every namespace; called once netlink is gone. */
void cg_device_uninit(void)
{
	struct cg_device *cd, *tmp;

	cancel_delayed_work_sync(&cg_device_first_work);
	rtnl_lock();
	mutex_lock(&cg_devices_lock);
	list_for_each_entry_safe(cd, tmp, &cg_devices, list)
		cg_device_destroy(cd);
	mutex_unlock(&cg_devices_lock);
	rtnl_unlock();

	unregister_netdevice_notifier(&cg_device_notifier);
	rcu_barrier();
}
