// SPDX-License-Identifier: GPL-2.0-only
/*
 * cg_hold.c - a test module that holds skb_checksum_help() with an ftrace
 * ops of its own with IPMODIFY, as a live patch of that function would,
 * and changes nothing: its handler returns at once. While it is loaded the
 * completion guard cannot have the function (tests/cases/45-kmod.sh,
 * completion_held).
 */
#include <linux/ftrace.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>

static void notrace cg_hold_func(unsigned long ip, unsigned long parent_ip,
				 struct ftrace_ops *op, void *regs)
{
}

static struct ftrace_ops cg_hold_ops = {
	.func = (ftrace_func_t)cg_hold_func,
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
};

static int __init cg_hold_init(void)
{
	int ret;

	ret = ftrace_set_filter_ip(&cg_hold_ops, (unsigned long)skb_checksum_help, 0, 0);
	if (ret)
		return ret;
	ret = register_ftrace_function(&cg_hold_ops);
	if (ret)
		ftrace_set_filter_ip(&cg_hold_ops, (unsigned long)skb_checksum_help, 1, 0);
	return ret;
}

static void __exit cg_hold_exit(void)
{
	if (!unregister_ftrace_function(&cg_hold_ops))
		ftrace_set_filter_ip(&cg_hold_ops, (unsigned long)skb_checksum_help, 1, 0);
}

module_init(cg_hold_init);
module_exit(cg_hold_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("csum-guard tests: hold skb_checksum_help() with IPMODIFY");
