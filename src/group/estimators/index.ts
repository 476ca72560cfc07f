// Every advantage estimator, one import each: the order is the order of `ESTIMATORS` and of the
// docs' table. To add one, copy an estimator file of this folder and add its line here.
import './grpo.js';
import './rloo.js';
import './opo.js';
import './grpo-passk.js';
import './reinforce-plus-plus.js';
import './reinforce-plus-plus-baseline.js';
import './gigpo.js';
import './trl-grpo.js';
import './gpg.js';
import './prime.js';
