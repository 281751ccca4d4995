var $,Se,Qe,A,re,ee,xe,Z,Te,ce,ie,et,j=Symbol.for("pv"),te={},ne=[],tt=/^m(i|n|o|s|text|space)$/,_e=Array.isArray,le=ne.slice,R=Object.assign;function O(t){t&&t.parentNode&&t.remove()}function ue(t,e,n){var s,r,o,i={},c=arguments.length;for(o in e)o=="key"?s=e[o]:o=="ref"&&typeof t!="function"?r=e[o]:i[o]=e[o];return c>2&&(i.children=c>3?le.call(arguments,2):n),W(t,i,s,r,null)}function W(t,e,n,s,r){var o={type:t,props:e,key:n,ref:s,__k:null,__:null,__b:0,__e:null,__c:null,constructor:j,__v:r||++Se,__i:-1,__u:0};return!r&&$.vnode&&$.vnode(o),o}function oe(t){return t.children}function z(t,e){this.props=t,this.context=e,this.__g=0}function D(t,e){if(e==null)return t.__&&D(t.__,t.__i+1);for(var n;e<t.__k.length;e++)if((n=t.__k[e])&&n.__e)return n.__e;return typeof t.type!="function"||t.props.__P?null:D(t)}function nt(t){var e,n=t.__v,s=n.__e,r=[],o=[],i=t.__P;i&&((e=R({constructor:j},n)).__v=n.__v+1,$.vnode&&$.vnode(e),pe(i,e,n,t.__n,i.namespaceURI,32&n.__u?[s]:null,r,s||D(n),32&n.__u,o),e.__v=n.__v,e.__.__k[e.__i]=e,Ne(r,e,o),n.__=n.__e=null,e.__e!=s&&Ee(e))}function Ee(t){if((t=t.__)&&t.__c&&!t.props.__P)return t.__e=null,t.__k.some(function(e){return e&&(t.__e=e.__e)}),Ee(t)}function we(t){(8&t.__g||(t.__g|=8,A.push(t),ee++))&&re==$.debounceRendering||((re=$.debounceRendering)||queueMicrotask)(Pe)}function Pe(){try{for(var t,e=1;A.length;)A.length>e&&A.sort(xe),t=A.shift(),e=A.length,8&t.__g&&nt(t)}finally{(ee=A.length)&&(re||queueMicrotask)(Pe)}}function Le(t,e,n,s,r,o,i,c,l,f,_){var m,d,a,u,b,y,g=s.__k||ne,h=e.length;for(l=ot(n,e,g,l,h),m=0;m<h;m++)(a=n.__k[m])!=null&&(d=~a.__i&&g[a.__i]||te,a.__i=m,y=pe(t,a,d,r,o,i,c,l,f,_),u=a.__e,(d.ref!=a.ref||8&d.__u)&&(d.ref&&de(d.ref,null,a,d),a.ref&&_.push(a.ref,a.__c||u,a)),b=b||u,4&a.__u?(l=He(a,l,t,!d.__v),d.__e&&(d.__e=null)):typeof a.type=="function"&&y!==void 0?l=y:u&&(l=u.nextSibling),a.__u&=-21);return n.__e=b,l}function ot(t,e,n,s,r){var o,i,c,l,f,_,m,d,a,u=n.length,b=u,y=0,g=0,h=t.__k=Array(r);for(o=0;o<r;o++)(i=e[o])!=null&&typeof i!="boolean"&&typeof i!="function"?(typeof i!="object"||i.constructor===String?i=h[o]=W(null,i):_e(i)?i=h[o]=W(oe,{children:i}):i.constructor===j&&i.__b?i=h[o]=W(i.type,i.props,i.key,i.ref,i.__v):h[o]=i,l=o+y,i.__=t,i.__b=t.__b+1,c=null,~(f=i.__i=st(i,n,l,b))&&(b--,(c=n[f])&&(c.__u|=2)),c&&c.__v?(i.__u|=16,f==l-1?y--:f==l+1?y++:f!=l&&(f>l?y--:y++,g=1)):(~f||(r>u?y--:r<u&&y++),typeof i.type!="function"&&(i.__u|=4))):h[o]=null;if(g){for(_=[],m=[],o=0;o<r;o++)if((i=h[o])&&16&i.__u){for(y=0,d=_.length;y<d;)_[a=y+d>>1]<i.__i?y=a+1:d=a;_[y]=i.__i,m[o]=y+1}for(y=_.length;o--;)m[o]&&(m[o]==y?y--:h[o].__u|=4)}if(b)for(o=0;o<u;o++)!(c=n[o])||2&c.__u||(c.__e==s&&(s=D(c)),fe(c,c));return s}function He(t,e,n,s){var r,o,i,c;if(typeof t.type=="function"){if(t.props.__P)return e;if(r=t.__k)for(o=0;o<r.length;o++)r[o]&&(r[o].__=t,e=He(r[o],e,n,!1));return e}for(e&&!e.parentNode&&(e=D(t))&&!e.parentNode&&(e=null),i=t.__e,c=e;c&&c.nodeType==8;)c=c.nextSibling;for(i!=c&&(!s&&n.moveBefore&&i.parentNode?n.moveBefore(i,e):n.insertBefore(i,e||null)),e=i;(e=e&&e.nextSibling)&&e.nodeType==8&&!e.data.startsWith("$s"););return e}function st(t,e,n,s){var r,o=t.key,i=t.type,c=e[n],l=c&&!(2&c.__u);if(c===null&&o==null||l&&o==c.key&&i==c.type)return n;if(s>(l?1:0)){for(r=n-1;r>=0;r--)if((c=e[r])&&!(2&c.__u)&&o==c.key&&i==c.type)return r;for(r=n+1;r<e.length;r++)if((c=e[r])&&!(2&c.__u)&&o==c.key&&i==c.type)return r}return-1}function Ce(t,e,n){n==null&&(n=""),e[0]=="-"?t.setProperty(e,n):t[e]=n}function Y(t,e,n,s,r){var o,i;if(e=="style")if(typeof n=="string")t.style.cssText=n;else{if(typeof s=="string"&&(t.style.cssText=s=""),s)for(e in s)n&&e in n||Ce(t.style,e);if(n)for(e in n)s&&n[e]==s[e]||Ce(t.style,e,n[e])}else if(e[0]=="o"&&e[1]=="n")typeof n!="function"&&(n=null),typeof s!="function"&&(s=null),(t.__e||(t.__e={}))[e]=n,n&&s||(i=ie[e]||(ie[e]=at(e)),(t.__a||(t.__a={}))[e]=ce,o=e!=(e=e.replace(Te,"$1")),(e=e.slice(2))[0]<"a"&&(e=e.toLowerCase()),n?t.addEventListener(e,i,o):t.removeEventListener(e,i,o));else{if(r=="http://www.w3.org/2000/svg")e=e.replace(/xlink(H|:h)/,"h").replace(/sName$/,"s");else if(e!="width"&&e!="height"&&e!="href"&&e!="list"&&e!="form"&&e!="tabIndex"&&e!="download"&&e!="rowSpan"&&e!="colSpan"&&e!="role"&&e!="popover"&&e in t)try{return void(t[e]=n??"")}catch{}if(typeof n=="function")return;n==null||n===!1&&e[4]!="-"?t.removeAttribute(e):t.setAttribute(e,e=="popover"&&n==1?"":n)}}function at(t){return function(e){var n=this.__e;if(n){if(n=n[t],e[Z]==null)e[Z]=ce++;else if(e[Z]<this.__a[t])return;return n($.event?$.event(e):e)}}}function pe(t,e,n,s,r,o,i,c,l,f){var _,m,d,a,u,b,y,g,h,k,v,C,P,M,F,U,N,E,w=e.type;if(e.constructor!==j)return null;128&n.__u&&(l=32&n.__u,_=n.__c.__z)&&(e.__u|=l,m=o=[],_.nodeType==8?c=Q(_,o):o.push(_),c=o[0]||c),(_=$.__b)&&_(e);e:if(typeof w=="function"){d=i.length;try{if(g=e.props,h=(_=w.prototype)&&_.render,k=(_=w.contextType)&&s[_.__c],v=_?k?k.props.value:_.__:s,(a=n.__c)?(e.__c=a,2&a.__g&&(a.__g|=1)):(h?e.__c=a=new w(g,v):(e.__c=a=new z(g,v),a.constructor=w,a.render=it),k&&k.sub(a),a.state||(a.state={}),a.__n=s,a.__g|=8,a.__h=[],a.__k=[]),h&&(a.__s||(a.__s=a.state),w.getDerivedStateFromProps&&(a.__s==a.state&&(a.__s=R({},a.__s)),R(a.__s,w.getDerivedStateFromProps(g,a.__s)))),u=a.props,b=a.state,a.__v=e,n.__c){if(g!==u&&h&&!w.getDerivedStateFromProps&&a.componentWillReceiveProps&&a.componentWillReceiveProps(g,v),e.__v==n.__v&&!(8&a.__g)||!(4&a.__g)&&a.shouldComponentUpdate&&a.shouldComponentUpdate(g,a.__s,v)===!1){e.__v!=n.__v&&(a.props=g,a.state=a.__s,a.__g&=-9),e.__e=n.__e,e.__k=n.__k,e.__k.some(function(L){L&&(L.__=e)}),ne.push.apply(a.__h,a.__k),a.__k=[],a.__h.length&&i.push(a),c=D(n);break e}a.componentWillUpdate&&a.componentWillUpdate(g,a.__s,v),h&&a.componentDidUpdate&&a.__h.push(function(){a.componentDidUpdate(u,b,y)})}else h&&!w.getDerivedStateFromProps&&a.componentWillMount&&a.componentWillMount(),h&&a.componentDidMount&&a.__h.push(a.componentDidMount);a.context=v,a.props=g,a.__P=t,a.__g&=-5,C=$.__r,P=h?25:0;do a.__g&=-9,C&&C(e),_=a.render(a.props,a.state=a.__s,a.context);while(8&a.__g&&++P<25);h&&(ne.push.apply(a.__h,a.__k),a.__k=[]),a.state=a.__s,a.getChildContext&&(s=R({},s,a.getChildContext())),h&&n.__c&&a.getSnapshotBeforeUpdate&&(y=a.getSnapshotBeforeUpdate(u,b)),M=_&&_.type===oe&&_.key==null?_.props.children:_,g.__P&&(_=c,r=(t=g.__P).namespaceURI,l=o=null,n.props&&n.props.__P!=t&&(n.__k.some(function(L){L&&fe(L,L)}),n.__k=null),c=n.__k?D(n,0):null),c=Le(t,_e(M)?M:[M],e,n,s,r,o,i,c,l,f),g.__P&&(e.__e=null,c=_),e.__u&=-161,m&&m.some(O),a.__h.length&&i.push(a),1&a.__g&&(a.__g&=-4)}catch(L){if(i.length=d,e.__v=null,l||o)if(L&&L.then){if(e.__u|=128|l,o){for(~(N=o.indexOf(c||void 0))||(N=o.length);(E=o[N-1])&&E.nodeType==8;)N--;for(;N<o.length;N++)if(E=o[N])if(o[N]=null,F){if(E==U)break}else{if(E.nodeType!=8)break;E.data.startsWith("$s")&&(U=Q(F=E))}}if(!F){for(;c&&c.nodeType==8&&c.nextSibling;)c=c.nextSibling;F=c}(_=Q(F=e.__c.__z||(e.__c.__z=F)))?(e.__e=F,c=_):e.__e=c,c=c&&c.nextSibling}else o&&o.some(O);else e.__e=n.__e;e.__k||(e.__k=n.__k||[]),L&&L.then||Me(e),$.__e(L,e,n)}}else c=e.__e=rt(n.__e,e,n,s,r,o,i,l,f,t);return(_=$.diffed)&&_(e),c}function Q(t,e){if(t&&t.nodeType==8&&t.data.startsWith("$s"))for(var n=1;t=t.nextSibling;){if(t.nodeType==8){if(t.data.startsWith("$s"))n++;else if(t.data.startsWith("/$s")&&!--n)return t}e&&e.push(t)}}function Me(t){t&&(t.__c&&(t.__c.__g|=4),t.__k&&t.__k.some(Me))}function Ne(t,e,n){for(var s=0;s<n.length;)de(n[s++],n[s++],n[s++]);$.__c&&$.__c(e,t),t.some(function(r){try{t=r.__h,r.__h=[],t.some(function(o){o.call(r)})}catch(o){$.__e(o,r.__v)}})}function rt(t,e,n,s,r,o,i,c,l,f){var _,m,d,a,u,b,y,g,h=n.props||te,k=e.props,v=e.type;if(v=="svg"?r="http://www.w3.org/2000/svg":v=="math"?r="http://www.w3.org/1998/Math/MathML":r||(r="http://www.w3.org/1999/xhtml"),o){for(_=0;_<o.length;_++)if((u=o[_])&&(v?u.localName==v:u.nodeType==3)){t=u,o[_]=null;break}}if(!t){if(g=f.ownerDocument||document,!v)return g.createTextNode(k);t=g.createElementNS(r,v,k.is?k:f),c&&($.__m&&$.__m(e,o),c=!1),o=null}if(v){if(f=v=="template"&&t.content||t,o=v=="textarea"&&k.defaultValue!=null?null:o&&le.call(f.childNodes),!c&&o)for(h={},_=0;_<t.attributes.length;_++)h[(u=t.attributes[_]).name]=u.value;for(_ in h)u=h[_],_=="dangerouslySetInnerHTML"?d=u:_=="children"||_ in k||_=="value"&&"defaultValue"in k||_=="checked"&&"defaultChecked"in k||Y(t,_,null,u,r);for(_ in k)u=k[_],_=="children"?a=u:_=="dangerouslySetInnerHTML"?m=u:_=="value"?b=u:_=="checked"?y=u:c&&typeof u!="function"||h[_]===u||Y(t,_,u,h[_],r);m?(c||d&&(m.__html==d.__html||m.__html==t.innerHTML)||(t.innerHTML=m.__html),e.__k=[]):(d&&(t.textContent=""),(v=="foreignObject"||r=="http://www.w3.org/1998/Math/MathML"&&tt.test(v))&&(r="http://www.w3.org/1999/xhtml"),Le(f,_e(a)?a:[a],e,n,s,r,o,i,o?o[0]:n.__k&&D(n,0),c,l),o&&o.some(O)),c&&v!="textarea"||(_="value",v=="progress"&&b==null?t.removeAttribute(_):b==null||b===t[_]&&(v!="progress"||b)||Y(t,_,b,h[_],r),_="checked",y!=null&&y!=t[_]&&Y(t,_,y,h[_],r))}else h===k||c&&t.data==k||(t.data=k);return t}function de(t,e,n,s){try{typeof t=="function"?e?e.__x=t(e)||1:s&&(s=s.__c||s.__e)&&(e=s.__x)&&(s.__x=null,typeof e=="function"?e():t(null)):t.current=e}catch(r){$.__e(r,n)}}function fe(t,e,n){var s,r,o,i;if($.unmount&&$.unmount(t),!(s=t.ref)||s.current&&s.current!=t.__e||de(s,null,e,t),s=t.__c){if(s.componentWillUnmount)try{s.componentWillUnmount()}catch(c){$.__e(c,e)}s.__P=s.__n=null}if(s=t.__k)for(i=0;i<s.length;i++)s[i]&&fe(s[i],e,typeof t.type!="function"||n&&!t.props.__P);!n&&(s=t.__c)&&(s=s.__z)&&(r=Q(s,o=[]))&&(s==t.__e&&o.some(O),O(r),O(s)),n||O(t.__e),t.__e=t.__c=t.__=null}function it(t,e,n){return this.constructor(t,n)}function he(t,e){var n,s,r,o;$.__&&$.__(t,e),e.nodeType==9&&(e=e.documentElement),s=(n=t&&32&t.__u)?null:e.__k,e.__k=W(oe,{children:[t]}),r=[],o=[],pe(e,e.__k,s||te,te,e.namespaceURI,s?null:e.firstChild?le.call(e.childNodes):null,r,s?s.__e:e.firstChild,n,o),Ne(r,e.__k,o),e.__k.props.children=null}$={__e:function(t,e,n,s){for(var r,o,i;e=e.__;)if((r=e.__c)&&!(1&r.__g)){r.__g|=4;try{if((i=(o=r.constructor)&&o.getDerivedStateFromError)&&r.setState(o.getDerivedStateFromError(t)),r.componentDidCatch&&(r.componentDidCatch(t,s||{}),i=1),i&&8&r.__g)return void(r.__g|=2)}catch(c){t=c}}throw ee=0,t}},Se=0,Qe=function(t){return t!=null&&t.constructor===j},z.prototype.setState=function(t,e){var n=this.__s;n&&n!=this.state||(n=this.__s=R({},this.state)),typeof t=="function"&&(t=t(R({},n),this.props)),t&&(R(n,t),this.__v&&(e&&this.__k.push(e),we(this)))},z.prototype.forceUpdate=function(t){this.__v&&(this.__g|=4,t&&this.__h.push(t),we(this))},z.prototype.render=oe,A=[],ee=0,xe=function(t,e){return t.__v.__b-e.__v.__b},Z=Symbol(),Te=/(PointerCapture)$|Capture$/i,ce=0,ie={},et=0;var B,x,me,Fe,ye=Object.is,se=0,ze=[],ge=[],S=$,Ae=S.__b,De=S.__r,Ie=S.diffed,Oe=S.__c,Re=S.unmount,qe=S.__;function ve(t,e){S.__h&&S.__h(x,t,se||e),se=0;var n=x.__H||(x.__H={__:[],__h:[]});return t>=n.__.length&&n.__.push({}),n.__[t]}function T(t){return se=1,ct(Ve,t)}function ct(t,e,n){var s=ve(B++,2);if(s.t=t,!s.__c&&(s.__=[n?n(e):Ve(void 0,e),function(o){var i=(s.__N||s.__)[0],c=s.t(i,o);ye(i,c)||(s.__N=[c,s.__[1]],s.__c.setState({}))}],s.__c=x,!x.__f)){x.__f=!0;var r=x.shouldComponentUpdate;x.shouldComponentUpdate=function(o,i,c){var l=this.__H;if(!l)return!0;var f=!1,_=this.props!=o;if(l.__.some(function(d){d.__N&&(f=!0,ye(d.__[0],d.__N[0])||(_=!0))}),r){var m=r.call(this,o,i,c);return f?m||_:m}return!f||_}}return s.__}function q(t,e){var n=ve(B++,3);!S.__s&&je(n.__H,e)&&(n.__P=!0,n.__=t,n.u=e,x.__H.__h.push(n))}function J(t){return se=5,be(function(){return{current:t}},[])}function be(t,e){var n=ve(B++,7);return je(n.__H,e)&&(n.__=t(),n.__H=e),n.__}function _t(){var t;do{for(;t=ge.shift();)try{V(t)}catch(n){S.__e(n,{__:(t=t.__P)&&t.__v})}for(;t=ze.shift();){var e=t.__H;if(t.__P&&e)try{e.__h.some(V),e.__h.some($e),e.__h=[]}catch(n){e.__h=[],S.__e(n,t.__v)}}}while(ge.length)}S.__b=function(t){x=null,Ae&&Ae(t)},S.__=function(t,e){t&&e.__k&&e.__k.__m&&(t.__m=e.__k.__m),qe&&qe(t,e)},S.__r=function(t){De&&De(t),B=0;var e=(x=t.__c).__H;e&&(me==x?x.__h=[]:(e.__h.some(V),e.__h.some($e),B=0),e.__h=[],e.__.some(function(n){n.__N&&(n.__=n.__N),n.u=n.__N=void 0})),me=x},S.diffed=function(t){Ie&&Ie(t);var e=t.__c;e&&e.__H&&(e.__H.__h.length&&We(ze.push(e)),e.__H.__.some(function(n){n.u&&(n.__H=n.u)})),me=x=null},S.__c=function(t,e){e.some(function(n){try{n.__h.some(V),n.__h=n.__h.filter(function(s){return!s.__||$e(s)})}catch(s){n.__h=[function(){throw s}]}}),Oe&&Oe(t,e)},S.unmount=function(t){Re&&Re(t);var e,n,s=t.__c;s&&s.__H&&(s.__H.__.some(function(r){try{if(r.__P&&r.__c){if(n===void 0){for(n=t.__;n&&(!n.__c||!n.__c.__P);)n=n.__;n=n&&n.__c}r.__P=n,We(ge.push(r))}else V(r)}catch(o){e=o}}),s.__H=void 0,e&&S.__e(e,s.__v))};var Ue=typeof requestAnimationFrame=="function";function lt(t){var e,n=function(){clearTimeout(s),Ue&&cancelAnimationFrame(e),setTimeout(t)},s=setTimeout(n,35);Ue&&(e=requestAnimationFrame(n))}function We(t){t!=1&&Fe==S.requestAnimationFrame||((Fe=S.requestAnimationFrame)||lt)(_t)}function V(t){var e=x,n=t.__c;typeof n=="function"&&(t.__c=void 0,n()),x=e}function $e(t){var e=x;t.__c=t.__(),x=e}function je(t,e){return!t||t.length!=e.length||e.some(function(n,s){return!ye(n,t[s])})}function Ve(t,e){return typeof e=="function"?e(t):e}var Je=function(t,e,n,s){var r;e[0]=0;for(var o=1;o<e.length;o++){var i=e[o++],c=e[o]?(e[0]|=i?1:2,n[e[o++]]):e[++o];i===3?s[0]=c:i===4?s[1]=Object.assign(s[1]||{},c):i===5?(s[1]=s[1]||{})[e[++o]]=c:i===6?s[1][e[++o]]+=c+"":i?(r=t.apply(c,Je(t,c,n,["",null])),s.push(r),c[0]?e[0]|=2:(e[o-2]=0,e[o]=r)):s.push(c)}return s},Be=new Map;function Ge(t){var e=Be.get(this);return e||(e=new Map,Be.set(this,e)),(e=Je(this,e.get(t)||(e.set(t,e=(function(n){for(var s,r,o=1,i="",c="",l=[0],f=function(d){o===1&&(d||(i=i.replace(/^\s*\n\s*|\s*\n\s*$/g,"")))?l.push(0,d,i):o===3&&(d||i)?(l.push(3,d,i),o=2):o===2&&i==="..."&&d?l.push(4,d,0):o===2&&i&&!d?l.push(5,0,!0,i):o>=5&&((i||!d&&o===5)&&(l.push(o,0,i,r),o=6),d&&(l.push(o,d,0,r),o=6)),i=""},_=0;_<n.length;_++){_&&(o===1&&f(),f(_));for(var m=0;m<n[_].length;m++)s=n[_][m],o===1?s==="<"?(f(),l=[l],o=3):i+=s:o===4?i==="--"&&s===">"?(o=1,i=""):i=s+i[0]:c?s===c?c="":i+=s:s==='"'||s==="'"?c=s:s===">"?(f(),o=1):o&&(s==="="?(o=5,r=i,i=""):s==="/"&&(o<5||n[_][m+1]===">")?(f(),o===3&&(l=l[0]),o=l,(l=l[0]).push(2,0,o),o=0):s===" "||s==="	"||s===`
`||s==="\r"?(f(),o=2):i+=s),o===3&&i==="!--"&&(o=4,l=l[0])}return f(),l})(t)),e),arguments,[])).length>1?e:e[0]}var p=Ge.bind(ue);var ae=1e4,G=30,Ke=8;async function H(t,e){let n=await fetch(`/__admin${t}`,{method:e?.method??"GET",headers:e?.body===void 0?{}:{"content-type":"application/json"},body:e?.body===void 0?void 0:JSON.stringify(e.body)}),s=await n.text(),r=s?JSON.parse(s):null;if(!n.ok)throw new Error(r?.error??`${n.status}`);return r}var Xe=t=>t===0?"s0":t<300?"s2":t<400?"s3":t<500?"s4":"s5",ke=t=>t?t.slice(0,8):"-",Ye=t=>t.slice(11,23),K=t=>`'${t.replace(/'/g,"'\\''")}'`;function ut(t,e){let{request:n}=t,s=[`curl -i -X ${n.method} ${K(`${e}${n.url}`)}`];for(let[r,o]of Object.entries(n.headers))r==="x-api-key"||r==="authorization"?s.push(`-H ${K("x-api-key: <API_KEY>")}`):["x-shop-id","content-type","idempotency-key","prefer"].includes(r)&&s.push(`-H ${K(`${r}: ${o}`)}`);return t.via==="mcp"&&s.push(`-H ${K("x-api-key: <API_KEY>")}`),n.body!==null&&n.body!==void 0&&s.push(`--data-raw ${K(typeof n.body=="string"?n.body:JSON.stringify(n.body))}`),s.join(` \\
  `)}function pt(t,e){return!(e.shop&&!(t.shop??"").toLowerCase().includes(e.shop.toLowerCase())||e.key&&!(t.key??"").includes(e.key)||e.status&&!String(t.status).startsWith(e.status.replace(/x+$/i,""))||e.operation&&!`${t.operationId??""} ${t.method} ${t.path}`.toLowerCase().includes(e.operation.toLowerCase()))}function dt(){let t=J([]),e=J(new Set),[n,s]=T(0),[r,o]=T(0),[i,c]=T(!1),[l,f]=T(),[_,m]=T({shop:"",key:"",status:"",operation:""}),[d,a]=T(),[u,b]=T("faults"),[y,g]=T("");q(()=>{let C=new EventSource("/__admin/console/events"),P=!1;return C.onopen=()=>c(!0),C.onerror=()=>c(!1),C.addEventListener("exchanges",M=>{let{exchanges:F,dropped:U,backlog:N}=JSON.parse(M.data);N&&(t.current=[],e.current.clear(),o(0));let E=t.current;for(let w of F)e.current.has(w.id)||(e.current.add(w.id),E.push(w));if(E.length>ae){o(w=>w+E.length-ae);for(let w of E.slice(0,E.length-ae))e.current.delete(w.id);t.current=E.slice(E.length-ae)}U&&o(w=>w+U),P||(P=!0,requestAnimationFrame(()=>{P=!1,s(w=>w+1)}))}),C.addEventListener("state",M=>f(JSON.parse(M.data))),()=>C.close()},[]);let h=be(()=>_.shop||_.key||_.status||_.operation?t.current.filter(P=>pt(P,_)):t.current,[n,_]),k=async(C,P)=>{try{await P(),g(C),f(await(async()=>({...l,...await H("/clock"),faults:(await H("/faults")).faults}))())}catch(M){g(`${C} failed: ${M.message}`)}},v=()=>k("World reset",async()=>{await H("/reset",{method:"POST",body:{}}),t.current=[],e.current.clear(),a(void 0),s(C=>C+1)});return p`
    <header class="top">
      <h1>shoptwin console</h1>
      <span class=${`conn ${i?"on":"off"}`} role="status">${i?"live":"disconnected"}</span>
      <span class="meta">${l?`seed ${l.seed} \xB7 today ${l.today} \xB7 rate limit ${l.rateLimit?"on":"off"} \xB7 tracing ${l.tracing?"on":"off"}`:""}</span>
      <${ft} live=${l} act=${k} />
      <button type="button" class="danger" onClick=${v}>Reset world</button>
    </header>
    <p class="notice" role="status" aria-live="polite">${y}</p>
    <main class="layout">
      <section class="exchanges" aria-labelledby="exchanges-title">
        <div class="section-head">
          <h2 id="exchanges-title">Exchanges</h2>
          <span class="count">${h.length} shown · ${t.current.length} kept${r?` \xB7 ${r} older dropped`:""}</span>
        </div>
        <${ht} filter=${_} setFilter=${m} />
        <${mt} rows=${h} selected=${d} select=${a} version=${n} />
        ${h.length===0?p`<p class="empty">${t.current.length?"No exchange matches the filters.":"No exchange yet: send a request to the twin and it appears here."}</p>`:""}
      </section>
      <section class="detail" aria-labelledby="detail-title">
        <h2 id="detail-title">Trace</h2>
        <${yt} id=${d} />
      </section>
    </main>
    <section class="panels" aria-label="Controls and state">
      <div class="tabs" role="tablist" aria-label="Panels">
        ${[["faults","Faults"],["limits","Rate limits & idempotency"],["state","Area state"],["connector","Connector"]].map(([C,P])=>p`<button type="button" role="tab" id=${`tab-${C}`} aria-controls="panel" aria-selected=${u===C} class=${u===C?"tab active":"tab"} onClick=${()=>b(C)}>${P}</button>`)}
      </div>
      <div class="panel" id="panel" role="tabpanel" tabindex="0" aria-labelledby=${`tab-${u}`}>
        ${u==="faults"?p`<${gt} live=${l} act=${k} />`:u==="limits"?p`<${$t} version=${n} />`:u==="state"?p`<${vt} />`:p`<${bt} version=${n} />`}
      </div>
    </section>
  `}function ft({live:t,act:e}){let[n,s]=T(""),r=(o,i)=>e(`Clock advanced ${i}`,()=>H("/clock",{method:"POST",body:{advance_ms:o}}));return p`
    <div class="clock" role="group" aria-label="Mock clock">
      <span class="now"><span class="label">Clock</span> <time>${t?t.now.replace("T"," ").replace("Z"," UTC"):"\u2026"}</time> <span class=${t?.frozen?"pill frozen":"pill running"}>${t?.frozen?"frozen":"running"}</span></span>
      ${t?.frozen?p`<button type="button" onClick=${()=>e("Clock running",()=>H("/clock",{method:"POST",body:{now:t.now,running:!0}}))}>Run</button>`:p`<button type="button" onClick=${()=>e("Clock frozen",()=>H("/clock",{method:"POST",body:{now:t?.now}}))}>Freeze</button>`}
      <button type="button" onClick=${()=>r(1e3,"1 s")}>+1 s</button>
      <button type="button" onClick=${()=>r(6e4,"1 min")}>+1 min</button>
      <button type="button" onClick=${()=>r(36e5,"1 h")}>+1 h</button>
      <button type="button" onClick=${()=>r(864e5,"1 day")}>+1 day</button>
      <form
        class="set"
        onSubmit=${o=>{o.preventDefault(),n&&e(`Clock set to ${n}`,()=>H("/clock",{method:"POST",body:{now:new Date(`${n}Z`).toISOString()}}))}}
      >
        <label for="clock-at">Set (UTC)</label>
        <input id="clock-at" type="datetime-local" step="1" value=${n} onInput=${o=>s(o.target.value)} />
        <button type="submit">Set</button>
      </form>
    </div>
  `}function ht({filter:t,setFilter:e}){let n=(s,r,o)=>p`
    <label class="filter">
      <span>${r}</span>
      <input type="search" name=${s} placeholder=${o} value=${t[s]} onInput=${i=>e({...t,[s]:i.target.value.trim()})} />
    </label>
  `;return p`<div class="filters">${n("shop","Shop","shop id")}${n("key","Key","key_\u2026 id")}${n("status","Status","4xx, 429\u2026")}${n("operation","Operation","operationId or path")}</div>`}function mt({rows:t,selected:e,select:n}){let s=J(null),[r,o]=T(0),[i,c]=T(480),[l,f]=T(!0);q(()=>{let a=s.current,u=()=>c(a.clientHeight);u();let b=new ResizeObserver(u);return b.observe(a),()=>b.disconnect()},[]),q(()=>{l&&s.current&&(s.current.scrollTop=s.current.scrollHeight)});let _=Math.max(0,Math.floor(r/G)-Ke),m=Math.min(t.length,Math.ceil((r+i)/G)+Ke),d=t.slice(_,m);return p`
    <div class="list-head" aria-hidden="true"><span>#</span><span>time</span><span>request</span><span>status</span><span>operation</span><span>key</span><span>shop</span><span>ms</span></div>
    <div
      class="list"
      ref=${s}
      tabindex="0"
      aria-label="Exchanges, newest last"
      onScroll=${a=>{let u=a.target;o(u.scrollTop),f(u.scrollTop+u.clientHeight>=u.scrollHeight-G)}}
    >
      <ol class="rows" style=${{height:`${t.length*G}px`}}>
        ${d.map((a,u)=>p`
            <li key=${a.id} style=${{transform:`translateY(${(_+u)*G}px)`}}>
              <button type="button" class=${a.id===e?"row selected":"row"} aria-pressed=${a.id===e} onClick=${()=>n(a.id)}>
                <span class="id">${a.id}</span>
                <span class="time">${Ye(a.time)}</span>
                <span class="req"><b>${a.method}</b> ${a.path}${a.query}</span>
                <span class=${`status ${Xe(a.status)}`}>${a.status||"drop"}</span>
                <span class="op">${a.operationId??"no operation"}${a.via==="mcp"?" (MCP)":""}</span>
                <span class="key">${a.key??"-"}</span>
                <span class="shop" title=${a.shop??""}>${ke(a.shop)}</span>
                <span class="ms">${a.durationMs.toFixed(1)}</span>
              </button>
            </li>
          `)}
      </ol>
    </div>
  `}function I({title:t,children:e}){return p`<div class="block"><h3>${t}</h3>${e}</div>`}var X=t=>typeof t=="string"?t:JSON.stringify(t,null,2);function yt({id:t}){let[e,n]=T(),[s,r]=T(""),[o,i]=T(!1);if(q(()=>{n(void 0),r(""),i(!1),t&&H(`/traces/${t}`).then(n,l=>r(l.message))},[t]),!t)return p`<p class="empty">Click an exchange to see why the twin answered as it did.</p>`;if(s)return p`<p class="empty">${s}</p>`;if(!e)return p`<p class="empty">Loading trace ${t}…</p>`;let c=ut(e,location.origin);return p`
    <div class="trace">
      <p class="trace-title"><span class=${`status ${Xe(e.status)}`}>${e.status||"drop"}</span> <b>${e.method}</b> ${e.path}${e.query} <span class="muted">trace ${e.id} · ${e.operationId??"no operation"} · ${e.time}</span></p>
      <${I} title="Decisions">
        <ol class="decisions">
          ${e.decisions.map(l=>p`
              <li class=${`decision ${l.outcome}`}>
                <span class="step">${l.step}</span>
                <span class="outcome">${l.outcome}</span>
                <span class="summary">${l.summary}${Array.isArray(l.detail?.failures)?p`<ul class="failures">${l.detail.failures.map(f=>p`<li>${f}</li>`)}</ul>`:""}</span>
                <span class="spec">spec: ${l.spec}</span>
              </li>
            `)}
        </ol>
      <//>
      <${I} title="Replay">
        <pre class="code">${c}</pre>
        <button type="button" onClick=${()=>navigator.clipboard?.writeText(c).then(()=>i(!0))}>${o?"Copied":"Copy curl"}</button>
      <//>
      <div class="two">
        <${I} title="Request"><pre class="code">${X(e.request.headers)}</pre><pre class="code">${X(e.request.body)}</pre><//>
        <${I} title="Answer"><pre class="code">${X(e.response.headers)}</pre><pre class="code">${X(e.response.body)}</pre><//>
      </div>
    </div>
  `}function gt({live:t,act:e}){let[n,s]=T({route:"*",status:"503",message:"",latency_ms:"",count:"1"}),r=c=>l=>s({...n,[c]:l.target.value}),o=c=>{c.preventDefault();let l={route:n.route||"*",count:Number(n.count)||1};n.status&&(l.status=Number(n.status)),n.message&&(l.message=n.message),n.latency_ms&&(l.latency_ms=Number(n.latency_ms)),e("Fault added",()=>H("/faults",{method:"POST",body:l}))},i=t?.faults??[];return p`
    <form class="fault-form" onSubmit=${o}>
      <label>Route <input name="route" value=${n.route} onInput=${r("route")} placeholder="operationId, permission, path or *" /></label>
      <label>Status <input name="status" inputmode="numeric" value=${n.status} onInput=${r("status")} /></label>
      <label>Message <input name="message" value=${n.message} onInput=${r("message")} placeholder="Injected fault: 503" /></label>
      <label>Latency ms <input name="latency_ms" inputmode="numeric" value=${n.latency_ms} onInput=${r("latency_ms")} /></label>
      <label>Count <input name="count" inputmode="numeric" value=${n.count} onInput=${r("count")} /></label>
      <button type="submit">Add fault</button>
    </form>
    ${i.length?p`<table>
          <caption>Faults waiting for their next matching requests</caption>
          <thead><tr><th scope="col">id</th><th scope="col">route</th><th scope="col">status</th><th scope="col">latency</th><th scope="col">message</th><th scope="col">remaining</th><th scope="col"><span class="visually-hidden">Remove</span></th></tr></thead>
          <tbody>
            ${i.map(c=>p`<tr>
                <td>${c.id}</td><td>${c.route}</td><td>${c.status??"-"}</td><td>${c.latency_ms??"-"}</td><td>${c.message??""}</td><td>${c.remaining}</td>
                <td><button type="button" class="danger" aria-label=${`Remove fault ${c.id}`} onClick=${()=>e(`Fault ${c.id} removed`,()=>H(`/faults/${c.id}`,{method:"DELETE"}))}>Remove</button></td>
              </tr>`)}
          </tbody>
        </table>`:p`<p class="empty">No fault injected.</p>`}
  `}function Ze(t,e){let[n,s]=T(),r=J(0);return q(()=>{let o=Date.now();n!==void 0&&o-r.current<2e3||(r.current=o,H(t).then(s,()=>{}))},[e,t]),n}function $t({version:t}){let e=Ze("/console/limits",t);return e?p`
    <div class="two">
      <${I} title=${`Rate counters per key and shop${e.rateLimit?"":" (rate limit off)"}`}>
        ${e.rate?.length?p`<table><thead><tr><th scope="col">key</th><th scope="col">shop</th><th scope="col">this second</th><th scope="col">window from</th><th scope="col">today</th></tr></thead>
              <tbody>${e.rate.map(n=>p`<tr><td>${n.key}</td><td title=${n.shop}>${ke(n.shop)}</td><td>${n.secondCount}/${n.perSecond}</td><td>${Ye(n.windowStart)}</td><td>${n.dayCount.toLocaleString("en")}/${n.perDay.toLocaleString("en")}</td></tr>`)}</tbody></table>`:p`<p class="empty">No counter yet.</p>`}
      <//>
      <${I} title="Idempotency records per shop and key">
        ${e.idempotency?.length?p`<table><thead><tr><th scope="col">shop</th><th scope="col">key</th><th scope="col">status</th><th scope="col">answer</th><th scope="col">trace</th><th scope="col">expires</th></tr></thead>
              <tbody>${e.idempotency.map(n=>p`<tr><td title=${n.shop}>${ke(n.shop)}</td><td>${n.key}</td><td>${n.status}</td><td>${n.responseStatus??"-"}</td><td>${n.trace??"-"}</td><td>${n.expiresAt??"-"}</td></tr>`)}</tbody></table>`:p`<p class="empty">No idempotency record.</p>`}
      <//>
    </div>
  `:p`<p class="empty">Loading…</p>`}function vt(){let[t,e]=T(),n=()=>H("/console/areas").then(e,()=>{});return q(()=>{n()},[]),t?p`
    <button type="button" onClick=${n}>Refresh</button>
    ${t.areas.length?"":p`<p class="empty">No area state made yet: an area's state is made on its first request.</p>`}
    ${t.areas.map(s=>p`<details class="area"><summary>${s.area}</summary><pre class="code">${X(s.state)}</pre></details>`)}
  `:p`<p class="empty">Loading…</p>`}function bt({version:t}){let e=Ze("/console/connector",t);return e?p`
    <div class="two">
      <${I} title="Connections">
        ${e.connections.length?p`<table><thead><tr><th scope="col">connection</th><th scope="col">client</th><th scope="col">shops</th><th scope="col">tools</th><th scope="col">last used</th><th scope="col">revoked</th></tr></thead>
              <tbody>${e.connections.map(n=>p`<tr><td>${n.connection_id}</td><td>${n.client_name}</td><td>${n.shops.length}</td><td>${n.tools.length}</td><td>${n.last_used_at??"-"}</td><td>${n.revoked_at??"-"}</td></tr>`)}</tbody></table>`:p`<p class="empty">No connection: an assistant connects through /oauth/authorize.</p>`}
      <//>
      <${I} title="Activity (newest first)">
        ${e.activity.length?p`<table><thead><tr><th scope="col">time</th><th scope="col">actor</th><th scope="col">operation</th><th scope="col">status</th></tr></thead>
              <tbody>${e.activity.slice(0,100).map(n=>p`<tr><td>${n.time}</td><td>${n.actor.kind==="connector"?n.actor.client_name:n.actor.key_id}</td><td>${n.tool??n.operation_id}</td><td>${n.status}</td></tr>`)}</tbody></table>`:p`<p class="empty">No activity.</p>`}
      <//>
    </div>
  `:p`<p class="empty">Loading…</p>`}he(p`<${dt} />`,document.getElementById("app"));export{ae as MAX_ROWS,ut as curlOf};
