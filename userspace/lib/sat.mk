# The SAT backend: CaDiCaL (Debian libcadical-dev, static library) behind a
# small C shim, userspace/lib/sat_cadical.cc.
CXX ?= g++
SAT_OBJ := $(BUILD)/obj/userspace/lib/sat_cadical.o
LIB_EXTRA_OBJ += $(SAT_OBJ)
LDLIBS_LIB_SAT += -l:libcadical.a -lstdc++ -lm

$(SAT_OBJ): userspace/lib/sat_cadical.cc userspace/lib/sat_backend.h
	@mkdir -p $(dir $@)
	$(CXX) -std=c++11 -Wall -Wextra -Werror -O2 -g -fPIC -Iuserspace/lib -c $< -o $@
