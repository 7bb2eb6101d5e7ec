// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * an_pair.c - request/response pairing through an index, not a scan.
 *
 * A response stream B->A (ACKs, NAKs, READ responses to A's QP) is paired
 * with the request stream A->B that sent the requests it answers.  The
 * candidates are the "unpaired request streams": streams that carried
 * requests (sequence state initialised, not switched off) and have no peer.
 * They are indexed twice:
 *   - by host pair (RoCE version, request source, request destination): a
 *     list per host pair with its length, in an an_table of host pairs;
 *   - by (host pair, expected PSN >> AN_PAIR_SHIFT): chained buckets, so the
 *     request streams whose expected PSN lies near a response PSN P are found
 *     without looking at the others.  A stream changes bucket when its
 *     expected PSN crosses a bucket boundary (once every 2^AN_PAIR_SHIFT
 *     PSNs).
 * an_pair_sync() keeps a stream's index entries true after anything that
 * changes its state (a request, a pairing, an eviction); each call is O(1).
 * The index counts the host pairs that get a candidate when they had none
 * (opened): a response stream whose look found no candidate looks again at
 * its next frame once that count moved (an_response.c).
 *
 * Choice: among the candidates of the host pair whose PSN window [first
 * PSN, expected PSN + slack] holds P, one with an outstanding AckReq / READ
 * request at exactly P wins (the oldest such request first), then the one
 * whose expected PSN is closest at or after P; but the only one with the
 * response stream's UDP source port, when that port is the one Linux derives
 * from the two QPNs (both directions of a connection carry it), wins over
 * the others unless they have an outstanding request at P and it has not
 * (pick_choice()); failing that, the only candidate of the host pair, if
 * there is exactly one (whatever its port).  A host pair with at
 * most AN_PAIR_SCAN candidates is scanned;
 * a larger one looks in the buckets of P's neighbourhood (expected PSN
 * within about 2^AN_PAIR_SHIFT PSNs of P), so a response whose PSN is
 * further behind its request stream's newest PSN than that, on a host pair
 * with more than AN_PAIR_SCAN unpaired request streams, stays unpaired
 * until one of its later frames (every AN_PAIR_EVERY-th) falls inside.
 *
 * Cost per QP (the many-QP captures create and pair a request stream every 4
 * frames): only host pairs with more than AN_PAIR_SCAN candidates are in the
 * buckets (the scan never reads them), linked all at once when the list
 * passes AN_PAIR_SCAN and until it empties; the host pair looked up last is
 * tried before the hash (a QP's response follows its request, and many QPs
 * share a host pair); an emptied spare is re-keyed for the next new host pair
 * instead of being freed while another record is taken.
 */
#include "an_internal.h"

#define AN_PAIR_SHIFT   10
#define AN_PAIR_NBUCKET (1u << (24 - AN_PAIR_SHIFT))
#define AN_PAIR_SCAN    32
#define AN_PAIR_MIN     64u
#define AN_PB_NONE      UINT32_MAX      /* struct an_pnode.bucket: not in the buckets */

struct an_hp {
	struct an_entry ent;
	uint32_t hash;              /* its slot's (bucket_hash(), removal) */
	uint8_t version;
	uint8_t bucketed;           /* its entries are in the buckets (n passed AN_PAIR_SCAN) */
	uint8_t src[16], dst[16];   /* of the request streams */
	uint32_t n;
	struct an_pnode *head;
};

/*
 * An indexed stream's entry (a record of pn_pool, struct an_req.pn): its
 * host pair and PSN bucket, and its links in both lists.  Only unpaired
 * request streams have one, so a paired stream pays nothing for the index.
 */
struct an_pnode {
	struct an_flow *f;
	struct an_hp *hp;
	struct an_pnode *hp_next, *hp_prev, *pb_next, *pb_prev;
	uint32_t bucket;            /* its PSN bucket while linked there, else AN_PB_NONE */
};

static uint32_t hp_hash(uint8_t version, const uint8_t src[16], const uint8_t dst[16])
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ version, w;

	for (int i = 0; i < 2; i++) {
		memcpy(&w, src + 8 * i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
		memcpy(&w, dst + 8 * i, 8);
		h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
		h ^= h >> 29;
	}
	return (uint32_t)(h ^ h >> 32);
}

static uint32_t bucket_hash(const struct an_hp *hp, uint32_t b)
{
	uint64_t h = ((uint64_t)hp->hash << 32 | b) * 0x9e3779b97f4a7c15ull;

	return (uint32_t)(h >> 32);
}

static uint32_t psn_bucket(const struct an_req *r)
{
	return (r->next & 0xffffffu) >> AN_PAIR_SHIFT;
}

int an_pair_init(struct an_pairidx *x, uint32_t cap)
{
	memset(x, 0, sizeof(*x));
	x->bucket = an_zalloc(AN_PAIR_MIN * sizeof(*x->bucket));
	if (!x->bucket)
		return -1;
	x->bmask = AN_PAIR_MIN - 1;
	an_pool_init(&x->hp_pool, sizeof(struct an_hp), 8);
	an_pool_init(&x->pn_pool, sizeof(struct an_pnode), 8);
	return an_table_init(&x->hp, cap);
}

uint64_t an_pair_bytes(const struct an_pairidx *x)
{
	return (uint64_t)(x->hp.mask + 1) * sizeof(*x->hp.slots) +
		(uint64_t)x->hp.dense_cap * sizeof(*x->hp.dense) +
		x->hp_pool.live * x->hp_pool.size + x->pn_pool.live * x->pn_pool.size +
		(uint64_t)(x->bmask + 1) * sizeof(*x->bucket);
}

void an_pair_free(struct an_pairidx *x)
{
	an_pool_free(&x->hp_pool);
	an_pool_free(&x->pn_pool);
	an_table_free(&x->hp);
	if (x->bucket)
		an_zfree_in(x->hp.arena, x->bucket, (x->bmask + 1) * sizeof(*x->bucket));
}

static struct an_hp *hp_find(struct an_pairidx *x, uint8_t version, const uint8_t *src,
	const uint8_t *dst, uint32_t h)
{
	struct an_table *t = &x->hp;
	uint32_t i = h & t->mask;

	while (t->slots[i].e) {
		struct an_hp *hp = (struct an_hp *)t->slots[i].e;

		if (t->slots[i].hash == h && hp->version == version && memcmp(hp->src, src, 16) == 0 &&
		    memcmp(hp->dst, dst, 16) == 0)
			return hp;
		i = (i + 1) & t->mask;
	}
	return NULL;
}

/* hp holds (version, src, dst): 16-byte compares as two words each */
static inline bool hp_is(const struct an_hp *hp, uint8_t version, const uint8_t *src,
	const uint8_t *dst)
{
	uint64_t a[4], b[4];

	memcpy(&a[0], hp->src, 16);
	memcpy(&a[2], hp->dst, 16);
	memcpy(&b[0], src, 16);
	memcpy(&b[2], dst, 16);
	return hp->version == version && ((a[0] ^ b[0]) | (a[1] ^ b[1]) | (a[2] ^ b[2]) |
		(a[3] ^ b[3])) == 0;
}

/* The host pair of (version, src, dst), the last one found or added first; *h its hash when
 * computed (0 when the cached one matched: not needed then). */
static inline struct an_hp *hp_lookup(struct an_pairidx *x, uint8_t version, const uint8_t *src,
	const uint8_t *dst, uint32_t *h)
{
	struct an_hp *hp = x->last;

	*h = 0;
	if (hp && hp_is(hp, version, src, dst))
		return hp;
	*h = hp_hash(version, src, dst);
	hp = hp_find(x, version, src, dst, *h);
	if (hp)
		x->last = hp;
	return hp;
}

static void bucket_link(struct an_pairidx *x, struct an_pnode *n)
{
	struct an_pnode **head = &x->bucket[bucket_hash(n->hp, n->bucket) & x->bmask];

	n->pb_prev = NULL;
	n->pb_next = *head;
	if (*head)
		(*head)->pb_prev = n;
	*head = n;
}

static void bucket_unlink(struct an_pairidx *x, struct an_pnode *n)
{
	if (n->pb_prev)
		n->pb_prev->pb_next = n->pb_next;
	else
		x->bucket[bucket_hash(n->hp, n->bucket) & x->bmask] = n->pb_next;
	if (n->pb_next)
		n->pb_next->pb_prev = n->pb_prev;
	n->pb_next = n->pb_prev = NULL;
}

/* Double the bucket array (load <= 1); on failure keep the old one. */
static void buckets_grow(struct an_pairidx *x)
{
	uint32_t nsize = (x->bmask + 1) * 2;
	struct an_pnode **nb = an_zalloc_in(x->hp.arena, nsize * sizeof(*nb));

	if (!nb)
		return;
	an_zfree_in(x->hp.arena, x->bucket, (x->bmask + 1) * sizeof(*x->bucket));
	x->bucket = nb;
	x->bmask = nsize - 1;
	for (uint32_t i = 0; i < x->hp.len; i++) {
		const struct an_hp *hp = (const struct an_hp *)an_dense_at(&x->hp, i);

		for (struct an_pnode *g = hp && hp->bucketed ? hp->head : NULL; g; g = g->hp_next)
			bucket_link(x, g);
	}
}

/* hp leaves the index (it has no candidate). */
static __attribute__((noinline)) void hp_drop(struct an_pairidx *x, struct an_hp *hp)
{
	if (x->last == hp)
		x->last = NULL;
	an_table_remove(&x->hp, &hp->ent, hp->hash);
	an_pool_put(&x->hp_pool, hp);
}

/* n into the buckets (its stream's current PSN bucket); buckets_fit() follows */
static void pn_bucket(struct an_pairidx *x, struct an_pnode *n)
{
	n->bucket = psn_bucket(n->f->req);
	bucket_link(x, n);
	x->n++;
}

/* Double the bucket array while its load passes 1 (relinks every bucketed stream). */
static void buckets_fit(struct an_pairidx *x)
{
	while (x->n > x->bmask + 1) {
		uint32_t m = x->bmask;

		buckets_grow(x);
		if (x->bmask == m)
			break;          /* no memory: a longer chain */
	}
}

/* hp passed AN_PAIR_SCAN candidates: each into the buckets, oldest first (newest at the
 * chains' heads, as if each had been linked when it was indexed) */
static __attribute__((noinline)) void hp_bucket_all(struct an_pairidx *x, struct an_hp *hp)
{
	struct an_pnode *g = hp->head;

	hp->bucketed = 1;
	while (g->hp_next)
		g = g->hp_next;
	for (; g; g = g->hp_prev)
		pn_bucket(x, g);
	buckets_fit(x);
}

static void index_add(struct an_pairidx *x, struct an_flow *f)
{
	const struct roce_flow_key *k = &f->st.key;
	uint32_t h;
	struct an_hp *hp = hp_lookup(x, k->version, k->src, k->dst, &h);
	/* (not cleared: every member is set below, the bucket links by bucket_link()) */
	struct an_pnode *n = an_pool_take(&x->pn_pool);

	if (!n)
		return;                 /* cannot index: the stream is simply not a candidate */
	if (hp && hp == x->spare) {
		x->spare = NULL;
	} else if (!hp) {
		if (x->spare) {
			/* the empty spare becomes the new host pair (a new key, hash and seq):
			 * what dropping it and taking a record came to, without the pool; and
			 * moved to its new slot in one step (an_table_rekey()) */
			hp = x->spare;
			x->spare = NULL;
			if (an_table_rekey(&x->hp, &hp->ent, hp->hash, h, x->seq)) {
				if (x->last == hp)
					x->last = NULL;
				an_pool_put(&x->hp_pool, hp);
				an_pool_put(&x->pn_pool, n);
				return;
			}
			x->seq++;
		} else if (x->hp.n >= x->hp.cap || an_table_room(&x->hp) ||
			   !(hp = an_pool_take(&x->hp_pool))) {
			an_pool_put(&x->pn_pool, n);
			return;
		} else {
			hp->ent.seq = x->seq++;
			an_table_insert(&x->hp, &hp->ent, h);
		}
		hp->hash = h;
		hp->version = k->version;
		hp->bucketed = 0;
		memcpy(hp->src, k->src, 16);
		memcpy(hp->dst, k->dst, 16);
		hp->n = 0;
		hp->head = NULL;
		x->last = hp;
	}
	n->f = f;
	n->hp = hp;
	n->hp_prev = NULL;
	n->hp_next = hp->head;
	if (hp->head)
		hp->head->hp_prev = n;
	hp->head = n;
	if (hp->n++ == 0)
		x->opened++;    /* (unpaired response streams waiting for one look again) */
	f->req->pn = n;
	n->pb_next = n->pb_prev = NULL;
	n->bucket = AN_PB_NONE;
	if (hp->bucketed) {
		pn_bucket(x, n);
		buckets_fit(x);
	} else if (hp->n > AN_PAIR_SCAN) {
		hp_bucket_all(x, hp);
	}
}

static void index_remove(struct an_pairidx *x, struct an_flow *f)
{
	struct an_pnode *n = f->req->pn;
	struct an_hp *hp = n->hp;

	if (n->bucket != AN_PB_NONE) {
		bucket_unlink(x, n);
		x->n--;
	}
	if (n->hp_prev)
		n->hp_prev->hp_next = n->hp_next;
	else
		hp->head = n->hp_next;
	if (n->hp_next)
		n->hp_next->hp_prev = n->hp_prev;
	f->req->pn = NULL;
	an_pool_put(&x->pn_pool, n);
	if (--hp->n == 0) {
		hp->bucketed = 0;
		/*
		 * An empty host pair stays while it is the last one emptied: many QPs
		 * between two hosts, each indexed until its response stream pairs, would
		 * otherwise create and remove it once per QP.  At most one is kept (it
		 * goes when another host pair is needed), so the index holds what it
		 * held before plus one record; an empty host pair has no candidate.
		 */
		if (x->spare)
			hp_drop(x, x->spare);
		x->spare = hp;
	}
}

void an_pair_sync(struct roce_analyzer *a, struct an_flow *f)
{
	bool want = !f->peer && f->req && f->req->init && !f->req->off;

	if (!f->req || !f->req->pn) {
		if (want)
			index_add(&a->pair, f);
	} else if (!want) {
		index_remove(&a->pair, f);
	} else if (f->req->pn->bucket != AN_PB_NONE && psn_bucket(f->req) != f->req->pn->bucket) {
		struct an_pnode *n = f->req->pn;

		bucket_unlink(&a->pair, n);
		n->bucket = psn_bucket(f->req);
		bucket_link(&a->pair, n);
	}
}

void an_pair_forget(struct roce_analyzer *a, struct an_flow *f)
{
	struct an_flow *g = f->peer;

	if (f->req && f->req->pn)
		index_remove(&a->pair, f);
	if (g) {
		g->peer = NULL;
		f->peer = NULL;
		an_pair_sync(a, g);
	}
}

static bool req_window_has(const struct an_req *r, uint32_t P)
{
	return r->init && !r->off && roce_psn_cmp(P, r->first_psn) >= 0 &&
		roce_psn_cmp(P, roce_psn_add(r->next, r->slack)) <= 0;
}

static void peer_link(struct roce_analyzer *a, struct an_flow *f, struct an_flow *g)
{
	f->peer = g;
	g->peer = f;
	if (!f->st.pmtu)
		f->st.pmtu = g->st.pmtu;
	if (!g->st.pmtu)
		g->st.pmtu = f->st.pmtu;
	/* an_pair_sync() of both: paired now, each leaves the index if it is in it */
	if (f->req && f->req->pn)
		index_remove(&a->pair, f);
	if (g->req && g->req->pn)
		index_remove(&a->pair, g);
	/* (an_pair_try()'s caller gives both request states room for their latencies) */
}

/* Oldest outstanding AckReq / READ entry of r with PSN P: its time, or UINT64_MAX. */
static uint64_t outstanding_at(const struct an_req *r, uint32_t P)
{
	for (unsigned i = 0; i < r->ack_n; i++) {
		const struct an_ackent *e = &r->ack[AN_RING_AT(r->ack_head + i, r->ack_cap)];

		if (e->psn == P)
			return e->ts;
	}
	return UINT64_MAX;
}

/* Today's order of two candidates: an outstanding request at P, the older one, the expected
 * PSN closest at or after P. */
struct rank {
	struct an_flow *best;
	uint64_t exact_ts;      /* UINT64_MAX: best has no outstanding request at P */
	uint32_t dist;
};

struct pick {
	struct rank all;        /* every candidate whose window holds P */
	struct rank port;       /* those whose port proves the connection (port_proves()) */
	uint32_t nport;         /* candidates with the response stream's port */
};

static void rank_keep(struct rank *k, struct an_flow *g, uint64_t ets, uint32_t dist)
{
	if (!k->best || ets < k->exact_ts || (ets == k->exact_ts && dist < k->dist)) {
		k->best = g;
		k->exact_ts = ets;
		k->dist = dist;
	}
}

/*
 * Linux's UDP source port of an RC QP with GRH flow label 0 (include/rdma/ib_verbs.h,
 * rdma_get_udp_sport(): rdma_calc_flow_label() folded by rdma_flow_label_to_udp_sport()),
 * which rxe, mlx5, irdma, mana and ionic use: symmetric in the two QPNs, so both
 * directions of a connection carry it.
 */
static uint16_t linux_sport(uint32_t lqpn, uint32_t rqpn)
{
	uint64_t v = (uint64_t)lqpn * rqpn;
	uint32_t fl;

	v ^= v >> 20;
	v ^= v >> 40;
	fl = (uint32_t)(v & 0xfffffu);
	return (uint16_t)(0xc000u | ((fl & 0x3fffu) ^ (fl >> 14)));
}

/*
 * f (response) and g (request) carry one UDP source port, and it is the one Linux derives
 * from the two QPNs (f's dest QP is the requester's, g's the responder's): the port proves
 * the connection.  A port equal by itself proves nothing: ports collide (16,384 values),
 * and NICs that pick a port per direction (hns: a random one) or a constant one match
 * unrelated streams by chance.
 */
static inline bool port_proves(const struct an_flow *f, const struct an_flow *g)
{
	return f->st.sport == g->st.sport &&
		f->st.sport == linux_sport(f->st.key.dqpn, g->st.key.dqpn);
}

/*
 * g into the pick if its window holds P.  k->all ranks by today's rule: a
 * stream with an outstanding AckReq / READ request at exactly P (the request
 * the response answers) beats one without, the older such request first
 * (responses come in request order), then the expected PSN closest at or
 * after P.  With many QPs between two hosts the windows of unrelated streams
 * overlap now and then; the exact match tells them apart.  k->port ranks the
 * same way the candidates whose port proves the connection, and k->nport
 * counts those with the response stream's port at all (an_pair_try() chooses).
 */
static void consider(struct an_flow *g, const struct an_flow *f, uint32_t P, struct pick *k)
{
	uint32_t dist;
	uint64_t ets;

	if (g == f || !req_window_has(g->req, P))
		return;
	dist = (g->req->next - P) & 0xffffffu;
	ets = outstanding_at(g->req, P);
	rank_keep(&k->all, g, ets, dist);
	if (f->st.sport && f->st.sport == g->st.sport) {
		k->nport++;
		if (port_proves(f, g))
			rank_keep(&k->port, g, ets, dist);
	}
}

/*
 * The pick's choice: today's best, unless the only candidate with the response stream's
 * port proves its connection (two QPs whose windows overlap, e.g. both started at PSN 0,
 * answered out of request order) and is not beaten by an outstanding request at P it
 * lacks.  Several candidates with the port (a constant port, a collision): the port tells
 * nothing, today's rule decides.
 */
static struct an_flow *pick_choice(const struct pick *k)
{
	if (k->port.best && k->nport == 1 &&
	    (k->port.exact_ts != UINT64_MAX || k->all.exact_ts == UINT64_MAX))
		return k->port.best;
	return k->all.best;
}

bool an_pair_try(struct roce_analyzer *a, struct an_flow *f, uint32_t P)
{
	struct an_pairidx *x = &a->pair;
	const struct roce_flow_key *k = &f->st.key;
	struct an_hp *hp;
	struct pick pk = { { NULL, UINT64_MAX, 0 }, { NULL, UINT64_MAX, 0 }, 0 };
	struct an_flow *best;
	struct an_pnode *g;
	uint32_t ncand, h;

	/* the request streams answered by f run the other way: dst -> src */
	hp = hp_lookup(x, k->version, k->dst, k->src, &h);
	if (!hp)
		return false;
	ncand = hp->n - (f->req && f->req->pn && f->req->pn->hp == hp);
	if (!ncand)
		return false;
	/*
	 * One candidate (n is 1 or 2, so the list, not the buckets) wins either way:
	 * consider() picks it, or nothing and the rule for a single candidate below
	 * does; so no scan (a QP alone on its host pair, the common case).
	 */
	if (ncand != 1 && hp->n <= AN_PAIR_SCAN) {
		for (g = hp->head; g; g = g->hp_next)
			consider(g->f, f, P, &pk);
	} else if (ncand != 1) {
		uint32_t b0 = (P & 0xffffffu) >> AN_PAIR_SHIFT;

		for (uint32_t d = 0; d < 3; d++) {
			uint32_t b = (b0 + AN_PAIR_NBUCKET - 1 + d) % AN_PAIR_NBUCKET;

			for (g = x->bucket[bucket_hash(hp, b) & x->bmask]; g; g = g->pb_next)
				if (g->hp == hp && g->bucket == b)
					consider(g->f, f, P, &pk);
		}
	}
	best = pick_choice(&pk);
	if (!best && ncand == 1)
		best = hp->head->f != f ? hp->head->f : hp->head->hp_next->f;
	if (best)
		peer_link(a, f, best);
	return true;
}
