// SPDX-License-Identifier: MIT
// The only C++ in libvsc: sat_backend.h over CaDiCaL's Solver class.
#include <cerrno>
#include <new>
#include <thread>

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
	bool failed = false; // out of memory while adding: the next solve says so
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

extern "C" void sat_backend_free_soon(struct sat_backend *s)
{
	if (!s)
		return;
	s->solver.disconnect_terminator();
	try {
		std::thread([s] { delete s; }).detach();
	} catch (...) {
		delete s;
	}
}

extern "C" void sat_backend_reserve(struct sat_backend *s, int nvars)
{
	try {
		s->solver.reserve(nvars);
	} catch (const std::bad_alloc &) {
		s->failed = true;
	}
}

extern "C" void sat_backend_add(struct sat_backend *s, int lit)
{
	if (s->failed)
		return;
	try {
		s->solver.add(lit);
	} catch (const std::bad_alloc &) {
		s->failed = true;
	}
}

extern "C" void sat_backend_assume(struct sat_backend *s, int lit)
{
	s->solver.assume(lit);
}

extern "C" int sat_backend_solve(struct sat_backend *s)
{
	if (s->failed)
		return -ENOMEM;
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
