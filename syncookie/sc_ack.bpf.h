/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * sc_ack.bpf.h - what syncookie_ack (syncookie.bpf.c) hands the kernel for
 * the connection a cookie ACK of ours makes: the kfunc, its attributes,
 * and those attributes as the ACK's echoed timestamp and the namespace
 * give them.
 */
#ifndef SC_ACK_BPF_H
#define SC_ACK_BPF_H

/*
 * bpf_sk_assign_tcp_reqsk() (6.9+): the connection a cookie ACK makes,
 * with the options the program says. Its attributes as the kernel
 * defines them (net/core/filter.c, 20 bytes); loaded only where the
 * kernel's BTF has the kfunc (attach.c), so weak.
 */
struct bpf_tcp_req_attrs {
	__u32 rcv_tsval;
	__u32 rcv_tsecr;
	__u16 mss;
	__u8 rcv_wscale;
	__u8 snd_wscale;
	__u8 ecn_ok;
	__u8 wscale_ok;
	__u8 sack_ok;
	__u8 tstamp_ok;
	__u8 usec_ts_ok;
	__u8 reserved[3];
};

/*
 * The kernel's struct sock, which the program never reads: a complete
 * struct (not a declaration), as libbpf matches a kfunc's prototype kind
 * for kind with the kernel's (names aside)
 */
struct sc_kernel_sock {
	int opaque;
};

extern int bpf_sk_assign_tcp_reqsk(struct __sk_buff *skb, struct sc_kernel_sock *sk,
				   struct bpf_tcp_req_attrs *attrs, int attrs__sz) __ksym __weak;

/*
 * The options of the connection an ACK of ours makes (attrs), as its echoed
 * timestamp (ts: tsval, tsecr) carries them and the namespace allows them
 * now: conf->opts, the sysctls as the last attach read them, masks what
 * the client may have been offered before (SACK, ECN: left out, which
 * both ends survive); the MSS is no more than the device's. False where
 * the echo asks for what cannot be left out: window scaling (the client
 * already scales the windows we send, as the SYN-ACK said) or timestamps
 * at all, once the namespace no longer lets a cookie carry them: the
 * kernel's own cookie path refuses those too.
 */
static __always_inline bool sc_ack_attrs(const struct sc_conf *conf, bool ts, __u32 tsval,
					 __u32 tsecr, bool v6, struct bpf_tcp_req_attrs *attrs)
{
	__u32 bits = tsecr & ((1 << SC_TS_BITS) - 1), dev = v6 ? conf->mss6 : conf->mss4;

	attrs->mss = sc_mss_of(0, v6);
	if (ts) {
		if (!(conf->opts & SC_OPT_ACK))
			return false;
		attrs->rcv_tsval = tsval;
		attrs->rcv_tsecr = tsecr;
		attrs->mss = sc_mss_of((tsecr >> SC_TS_MSS_SHIFT) & 3, v6);
		attrs->tstamp_ok = 1;
		attrs->sack_ok = (bits & SC_TS_OPT_SACK) && (conf->opts & SC_OPT_SACK);
		attrs->ecn_ok = (bits & SC_TS_OPT_ECN) && (conf->opts & SC_OPT_ECN);
		if ((bits & SC_TS_OPT_NOWS) != SC_TS_OPT_NOWS) {
			if (!(conf->opts & SC_OPT_WS))
				return false;
			attrs->wscale_ok = 1;
			attrs->snd_wscale = bits & SC_TS_OPT_NOWS;
			attrs->rcv_wscale = conf->wscale;
		}
	}
	if (dev && attrs->mss > dev)
		attrs->mss = dev;
	return true;
}

#endif /* SC_ACK_BPF_H */
