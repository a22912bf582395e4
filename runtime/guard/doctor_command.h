// `doberman-guard doctor HOST`: checks that a host is really guarded, the way an attacker would
// look for a gap: settings that fail closed on every required event, the guard, pack and key
// present, verified and out of the agent's reach, the state directory protected, the service
// answering, and a canary call sent through the very command the host runs, which must come back
// refused. Names each problem; exit 1 when there is any.
#ifndef DOBERMAN_GUARD_DOCTOR_COMMAND_H_
#define DOBERMAN_GUARD_DOCTOR_COMMAND_H_

#include "install_command.h"

namespace doberman::guard {

int RunDoctor(const InstallOptions& o);

}  // namespace doberman::guard

#endif  // DOBERMAN_GUARD_DOCTOR_COMMAND_H_
