// SPDX-License-Identifier: MIT
// The only C++ in libvsc: sat_backend.h over CaDiCaL's Solver class.
#include <cerrno>
#include <new>

#include <cadical.hpp>

#include "sat_backend.h"

namespace {
struct Stopper : CaDiCaL::Terminator {
	int (*stop)(void *);
	void *ctx;
	bool terminate() override { return stop && stop(ctx); }
};
} // namespace

struct sat_backend {
	CaDiCaL::Solver solver;
	Stopper stopper;
};

extern "C" struct sat_backend *sat_backend_new(int (*stop)(void *ctx), void *ctx)
{
	sat_backend *s = new (std::nothrow) sat_backend;
	if (!s)
		return nullptr;
	s->stopper.stop = stop;
	s->stopper.ctx = ctx;
	s->solver.set("quiet", 1);
	s->solver.connect_terminator(&s->stopper);
	return s;
}

extern "C" void sat_backend_free(struct sat_backend *s)
{
	if (!s)
		return;
	s->solver.disconnect_terminator();
	delete s;
}

extern "C" void sat_backend_reserve(struct sat_backend *s, int nvars)
{
	s->solver.reserve(nvars);
}

extern "C" void sat_backend_add(struct sat_backend *s, int lit)
{
	s->solver.add(lit);
}

extern "C" int sat_backend_solve(struct sat_backend *s)
{
	try {
		return s->solver.solve();
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	}
}

extern "C" int sat_backend_true(struct sat_backend *s, int var)
{
	return s->solver.val(var) > 0;
}
